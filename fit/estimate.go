package fit

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// cluster is one game's share of a ratio: its total y over its n positions.
type cluster struct{ y, n float64 }

// estimate returns the ratio sum(y)/sum(n) over clusters with n > 0 and its
// 95% interval from the cluster-robust variance of a ratio estimator (see
// the package comment), clipped to [lo, hi]. It has no interval with fewer
// than two clusters.
func estimate(cs []cluster, lo, hi float64) Estimate {
	var sy, sn float64
	g := 0
	for _, c := range cs {
		if c.n > 0 {
			sy += c.y
			sn += c.n
			g++
		}
	}
	e := Estimate{Positions: int(sn), Games: g}
	if g == 0 {
		return e
	}
	r := sy / sn
	e.Mean = r
	if g < 2 {
		return e
	}
	var ss float64
	for _, c := range cs {
		if c.n > 0 {
			d := c.y - r*c.n
			ss += d * d
		}
	}
	se := math.Sqrt(float64(g)/float64(g-1)*ss) / sn
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(g - 1)}.Quantile(0.975)
	e.CI95 = &[2]float64{max(lo, r-t*se), min(hi, r+t*se)}
	return e
}
