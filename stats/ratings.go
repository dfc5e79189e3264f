package stats

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"

	"taflab/internal/errctx"
)

// eloPerNatural converts the natural (logit) scale of the fit to Elo:
// 400/ln 10 ≈ 173.72.
const eloPerNatural = 400 / math.Ln10

// divergeNatural is the logit magnitude (≈ 5200 Elo) past which a fit is
// taken to diverge: the likelihood has no maximum.
const divergeNatural = 30

// Result is what the rating fit takes of a finished game: who played each
// side and the attacker's score.
type Result struct {
	Attacker, Defender string  // the players (networks) on each side
	Score              float64 // the attacker's score: 1 attacker won, 0.5 draw, 0 defender won
}

// PlayerRating is one player's fitted rating.
type PlayerRating struct {
	Name   string
	Elo    float64 // relative to the anchor, which is 0
	SE     float64 // standard error of Elo (0 for the anchor, which is fixed); see Ratings.Dispersion
	Games  int     // games against other players (games a player played against itself are not counted)
	Points float64 // points scored in those games
}

// Ratings is the result of FitRatings.
type Ratings struct {
	Anchor string
	// Players holds every player, strongest first (ties by name).
	Players []PlayerRating
	// SideAdvantage is the attackers' Elo bonus: the attacker of a game
	// between equally rated players is expected to score
	// ExpectedScore(SideAdvantage). Negative when defenders are favoured.
	SideAdvantage float64
	// SideAdvantageSE is its standard error.
	SideAdvantageSE float64
	// Games is the number of games fitted.
	Games int
	// Iterations is the number of Newton iterations taken.
	Iterations int
	// LogLikelihood is the log-likelihood at the fit (natural log; with a
	// prior, the log prior density's non-constant part is included).
	LogLikelihood float64
	// Dispersion is Pearson's estimate of the ratio of the scores' actual
	// variance to the variance the model assumes, Σ (s−p)²/(p(1−p)) divided
	// by (games − parameters). Treating a draw as half a win and half a loss
	// assumes the variance p(1−p) of a game without draws; draws make the
	// real variance smaller, the Dispersion below 1 and the SEs
	// conservative. Multiplying an SE by sqrt(Dispersion) gives the
	// quasi-likelihood SE, which is calibrated whatever the draw rate. It is
	// NaN when there are no more games than parameters.
	Dispersion float64

	index map[string]int // name → index into Players
	param map[string]int // name → parameter index (absent for the anchor)
	cov   *mat.SymDense  // covariance of the parameters, Elo², side advantage last
}

// SEScale is what to multiply the standard errors by for intervals that
// hold whatever the draw rate: sqrt(Dispersion) when the scores vary more
// than the model allows (above 1), else 1, which keeps the conservative
// SEs (and 1 when Dispersion is NaN).
func (r Ratings) SEScale() float64 {
	if r.Dispersion > 1 {
		return math.Sqrt(r.Dispersion)
	}
	return 1
}

// Player returns the named player's rating.
func (r Ratings) Player(name string) (PlayerRating, bool) {
	i, ok := r.index[name]
	if !ok {
		return PlayerRating{}, false
	}
	return r.Players[i], true
}

// DiffSE is the standard error of the rating difference Elo(a) − Elo(b),
// from the fit's covariance (it is not the root sum of the two SEs: the
// estimates are correlated through shared opponents).
func (r Ratings) DiffSE(a, b string) (float64, error) {
	_, oka := r.index[a]
	_, okb := r.index[b]
	if !oka || !okb {
		return 0, errctx.Errorf("stats", "no rated player %q or %q", a, b)
	}
	pa, hasA := r.param[a]
	pb, hasB := r.param[b]
	v := 0.0
	if hasA {
		v += r.cov.At(pa, pa)
	}
	if hasB {
		v += r.cov.At(pb, pb)
	}
	if hasA && hasB {
		v -= 2 * r.cov.At(pa, pb)
	}
	return math.Sqrt(math.Max(v, 0)), nil
}

// Expected is the fitted expected score of attacker against defender:
// ExpectedScore(Elo(attacker) + SideAdvantage − Elo(defender)).
func (r Ratings) Expected(attacker, defender string) (float64, error) {
	a, oka := r.Player(attacker)
	d, okd := r.Player(defender)
	if !oka || !okd {
		return 0, errctx.Errorf("stats", "no rated player %q or %q", attacker, defender)
	}
	return ExpectedScore(a.Elo + r.SideAdvantage - d.Elo), nil
}

// FitOptions tune FitRatingsWith. The zero value is FitRatings' behaviour.
type FitOptions struct {
	// PriorSD, when positive, puts an independent normal prior N(0, PriorSD²)
	// (Elo) on every rating and on the side advantage, which makes the fit a
	// maximum a posteriori estimate that always exists: use it when some
	// player won or lost every game. 0 means maximum likelihood, no prior.
	PriorSD float64
	// MaxIter bounds the Newton iterations; 0 means 100.
	MaxIter int
}

// Validate checks that PriorSD is finite and not negative and MaxIter not
// negative.
func (o FitOptions) Validate() error {
	var errs []error
	if !(o.PriorSD >= 0) || math.IsInf(o.PriorSD, 0) {
		errs = append(errs, errctx.Errorf("stats", "prior SD %v not finite and >= 0", o.PriorSD))
	}
	if o.MaxIter < 0 {
		errs = append(errs, errctx.Errorf("stats", "negative iteration limit %d", o.MaxIter))
	}
	return errors.Join(errs...)
}

// FitRatings fits a Bradley-Terry (logistic Elo) model with a side advantage
// to the games by maximum likelihood:
//
//	P(attacker scores) = ExpectedScore(Elo(attacker) + SideAdvantage − Elo(defender))
//
// where a game with score s contributes s·log P + (1−s)·log(1−P), so a draw
// counts as half a win and half a loss. The anchor's rating is fixed at 0.
// Newton's method with a backtracking line search maximizes the (concave)
// log-likelihood; the standard errors come from the inverse of the observed
// information (the negated Hessian) at the maximum. Those are exact for
// decisive games and conservative when there are draws: see
// Ratings.Dispersion for the correction.
//
// It returns an error, and no ratings, when there are no games, the anchor
// played none, a player is not connected to the anchor through a chain of
// games, a score is not in [0, 1], or the maximum does not exist: a player
// won (or lost) every game, attackers (or defenders) won every game, a group
// of players won every game against the rest, or the games do not separate
// the side advantage from the ratings (each pair of players always met with
// the same sides). FitRatingsWith with a PriorSD fits such data anyway.
func FitRatings(games []Result, anchor string) (Ratings, error) {
	return FitRatingsWith(games, anchor, FitOptions{})
}

// FitRatingsWith is FitRatings with options; with a positive PriorSD the
// unbounded and unidentifiable cases are fitted instead of refused (the
// prior pulls them toward 0), while the other errors remain.
func FitRatingsWith(games []Result, anchor string, opts FitOptions) (Ratings, error) {
	if err := opts.Validate(); err != nil {
		return Ratings{}, err
	}
	maxIter := opts.MaxIter
	if maxIter == 0 {
		maxIter = 100
	}
	if len(games) == 0 {
		return Ratings{}, errctx.Errorf("stats", "no games to fit")
	}
	if anchor == "" {
		return Ratings{}, errctx.Errorf("stats", "empty anchor name")
	}

	// Players in order of first appearance, game checks and per-player totals.
	index := map[string]int{}
	var names []string
	var played []int
	var points []float64
	add := func(name string) int {
		i, ok := index[name]
		if !ok {
			i = len(names)
			index[name] = i
			names = append(names, name)
			played = append(played, 0)
			points = append(points, 0)
		}
		return i
	}
	attackerPoints := 0.0
	for k, g := range games {
		if !(g.Score >= 0 && g.Score <= 1) {
			return Ratings{}, errctx.Errorf("stats", "game %d (%s vs %s) has score %v outside [0, 1]", k, g.Attacker, g.Defender, g.Score)
		}
		a, d := add(g.Attacker), add(g.Defender)
		attackerPoints += g.Score
		if a != d {
			played[a]++
			played[d]++
			points[a] += g.Score
			points[d] += 1 - g.Score
		}
	}
	if _, ok := index[anchor]; !ok {
		return Ratings{}, errctx.Errorf("stats", "anchor %q played no game", anchor)
	}
	if err := checkConnected(games, names, index, anchor); err != nil {
		return Ratings{}, err
	}
	if opts.PriorSD == 0 {
		for i, name := range names {
			switch {
			case played[i] > 0 && points[i] == float64(played[i]):
				return Ratings{}, errctx.Errorf("stats", "player %q won all its %d games: its rating is unbounded (fit with FitOptions.PriorSD)", name, played[i])
			case played[i] > 0 && points[i] == 0:
				return Ratings{}, errctx.Errorf("stats", "player %q lost all its %d games: its rating is unbounded (fit with FitOptions.PriorSD)", name, played[i])
			}
		}
		switch attackerPoints {
		case float64(len(games)):
			return Ratings{}, errctx.Errorf("stats", "attackers won every game: the side advantage is unbounded (fit with FitOptions.PriorSD)")
		case 0:
			return Ratings{}, errctx.Errorf("stats", "defenders won every game: the side advantage is unbounded (fit with FitOptions.PriorSD)")
		}
	}

	// Parameters: every player but the anchor, then the side advantage, on
	// the natural (logit) scale.
	param := map[string]int{}
	pidx := make([]int, len(names)) // player index → parameter index, -1 for the anchor
	k := 0
	for i, name := range names {
		if name == anchor {
			pidx[i] = -1
			continue
		}
		pidx[i] = k
		param[name] = k
		k++
	}
	side := k
	dim := k + 1
	type obs struct {
		a, d  int // parameter indices, -1 for the anchor
		score float64
	}
	data := make([]obs, len(games))
	for j, g := range games {
		a, d := pidx[index[g.Attacker]], pidx[index[g.Defender]]
		if g.Attacker == g.Defender {
			a, d = -1, -1 // the ratings cancel; only the side advantage is informed
		}
		data[j] = obs{a, d, g.Score}
	}
	precision := 0.0 // of the prior, natural scale
	if opts.PriorSD > 0 {
		sd := opts.PriorSD / eloPerNatural
		precision = 1 / (sd * sd)
	}

	theta := make([]float64, dim)
	eta := func(o obs, th []float64) float64 {
		x := th[side]
		if o.a >= 0 {
			x += th[o.a]
		}
		if o.d >= 0 {
			x -= th[o.d]
		}
		return x
	}
	objective := func(th []float64) float64 {
		ll := 0.0
		for _, o := range data {
			x := eta(o, th)
			// log σ(x) = -log1p(e^-x), log(1-σ(x)) = -log1p(e^x), computed stably.
			ll -= o.score*softplus(-x) + (1-o.score)*softplus(x)
		}
		for _, t := range th {
			ll -= precision * t * t / 2
		}
		return ll
	}
	info := mat.NewSymDense(dim, nil)
	grad := mat.NewVecDense(dim, nil)
	// derivatives fills grad and info (the negated Hessian) at theta.
	derivatives := func() {
		info.Zero()
		grad.Zero()
		for _, o := range data {
			x := eta(o, theta)
			p := sigmoid(x)
			r := o.score - p
			w := p * (1 - p)
			idx := [3]int{o.a, o.d, side}
			sgn := [3]float64{1, -1, 1}
			for u := 0; u < 3; u++ {
				if idx[u] < 0 {
					continue
				}
				grad.SetVec(idx[u], grad.AtVec(idx[u])+sgn[u]*r)
				for v := u; v < 3; v++ {
					if idx[v] < 0 {
						continue
					}
					// a == d never reaches here (self games have both -1).
					info.SetSym(idx[u], idx[v], info.At(idx[u], idx[v])+sgn[u]*sgn[v]*w)
				}
			}
		}
		for i := 0; i < dim; i++ {
			grad.SetVec(i, grad.AtVec(i)-precision*theta[i])
			info.SetSym(i, i, info.At(i, i)+precision)
		}
	}
	singular := errctx.Errorf("stats", "the games do not identify every rating and the side advantage separately (for instance each pair of players always met with the same sides): fit with FitOptions.PriorSD")
	factor := func() (*mat.Cholesky, bool) {
		var chol mat.Cholesky
		if !chol.Factorize(info) || chol.Cond() > 1e13 {
			return nil, false
		}
		return &chol, true
	}

	ll := objective(theta)
	var step mat.VecDense
	iter := 0
	converged := false
	for iter < maxIter {
		iter++
		derivatives()
		chol, ok := factor()
		if !ok {
			return Ratings{}, singular
		}
		if err := chol.SolveVecTo(&step, grad); err != nil {
			return Ratings{}, singular
		}
		// Backtracking: halve the Newton step until the objective does not
		// decrease (it is concave, so the full step is usually taken).
		trial := make([]float64, dim)
		t := 1.0
		var next float64
		for half := 0; half < 60; half++ {
			for i := range trial {
				trial[i] = theta[i] + t*step.AtVec(i)
			}
			next = objective(trial)
			if next >= ll-1e-12*math.Abs(ll) {
				break
			}
			t /= 2
		}
		maxStep := 0.0
		for i := range theta {
			maxStep = math.Max(maxStep, math.Abs(trial[i]-theta[i]))
		}
		copy(theta, trial)
		ll = next
		for _, v := range theta {
			if math.Abs(v) > divergeNatural {
				return Ratings{}, errctx.Errorf("stats", "ratings diverge: a group of players won (or lost) every game against the rest, so the likelihood has no maximum: fit with FitOptions.PriorSD")
			}
		}
		if maxStep < 1e-10 {
			converged = true
			break
		}
	}
	if !converged {
		return Ratings{}, errctx.Errorf("stats", "rating fit did not converge in %d iterations: the likelihood may have no maximum; fit with FitOptions.PriorSD", maxIter)
	}

	// Covariance from the information at the maximum.
	derivatives()
	chol, ok := factor()
	if !ok {
		return Ratings{}, singular
	}
	var cov mat.SymDense
	if err := chol.InverseTo(&cov); err != nil {
		return Ratings{}, singular
	}
	cov.ScaleSym(eloPerNatural*eloPerNatural, &cov)
	pearson := 0.0
	for _, o := range data {
		p := sigmoid(eta(o, theta))
		pearson += (o.score - p) * (o.score - p) / (p * (1 - p))
	}
	dispersion := math.NaN()
	if len(data) > dim {
		dispersion = pearson / float64(len(data)-dim)
	}

	players := make([]PlayerRating, len(names))
	for i, name := range names {
		pr := PlayerRating{Name: name, Games: played[i], Points: points[i]}
		if j := pidx[i]; j >= 0 {
			pr.Elo = theta[j] * eloPerNatural
			pr.SE = math.Sqrt(cov.At(j, j))
		}
		players[i] = pr
	}
	sort.SliceStable(players, func(a, b int) bool {
		if players[a].Elo != players[b].Elo {
			return players[a].Elo > players[b].Elo
		}
		return players[a].Name < players[b].Name
	})
	sorted := make(map[string]int, len(players))
	for i, p := range players {
		sorted[p.Name] = i
	}
	return Ratings{
		Anchor:          anchor,
		Players:         players,
		SideAdvantage:   theta[side] * eloPerNatural,
		SideAdvantageSE: math.Sqrt(cov.At(side, side)),
		Games:           len(games),
		Iterations:      iter,
		LogLikelihood:   ll,
		Dispersion:      dispersion,
		index:           sorted,
		param:           param,
		cov:             &cov,
	}, nil
}

// Groups splits the players of the games into groups that no chain of games
// links: ratings compare only within a group, so FitRatings takes the games
// of one group at a time. Each group lists its players in the order they
// first appear in games, and the groups are in the order of their first
// players.
func Groups(games []Result) [][]string {
	index := map[string]int{}
	var names []string
	for _, g := range games {
		for _, name := range []string{g.Attacker, g.Defender} {
			if _, ok := index[name]; !ok {
				index[name] = len(names)
				names = append(names, name)
			}
		}
	}
	find := linkPlayers(games, names, index)
	var groups [][]string
	at := map[int]int{} // root → index into groups
	for i, name := range names {
		r := find(i)
		j, ok := at[r]
		if !ok {
			j = len(groups)
			at[r] = j
			groups = append(groups, nil)
		}
		groups[j] = append(groups[j], name)
	}
	return groups
}

// linkPlayers joins the players (indices into names) that met in a game and
// returns the find function of the resulting union-find: two players are
// linked by a chain of games when find gives them the same root.
func linkPlayers(games []Result, names []string, index map[string]int) func(int) int {
	parent := make([]int, len(names))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for _, g := range games {
		a, d := find(index[g.Attacker]), find(index[g.Defender])
		if a != d {
			parent[a] = d
		}
	}
	return find
}

// checkConnected returns an error naming the players that no chain of games
// links to the anchor.
func checkConnected(games []Result, names []string, index map[string]int, anchor string) error {
	find := linkPlayers(games, names, index)
	root := find(index[anchor])
	var lost []string
	for i, name := range names {
		if find(i) != root {
			lost = append(lost, fmt.Sprintf("%q", name))
		}
	}
	if len(lost) == 0 {
		return nil
	}
	sort.Strings(lost)
	more := ""
	if len(lost) > 10 {
		more = fmt.Sprintf(" and %d more", len(lost)-10)
		lost = lost[:10]
	}
	return errctx.Errorf("stats", "no chain of games links these players to anchor %q, so their ratings are undefined (a prior would not define them: fit each of Groups(games) on its own): %s%s", anchor, strings.Join(lost, ", "), more)
}

// sigmoid is 1/(1+e^-x).
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// softplus is log(1+e^x), without overflow.
func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}
