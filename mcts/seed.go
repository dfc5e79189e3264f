package mcts

// MixSeed derives a seed from a seed and an index: the splitmix64 output
// function (Steele, Lea and Flood, "Fast splittable pseudorandom number
// generators", 2014) applied to seed·φ + index + 1, φ = 0x9e3779b97f4a7c15
// the golden-ratio increment. Every bit of both inputs then affects every
// bit of the result, so seeds derived from neighbouring indices (game 0, 1,
// 2, ... of a run, or runs with seeds 1, 2, 3) are unrelated rather than
// starting random streams that differ in a few low bits; it is cheap,
// stateless and needs no generator to be carried or locked, so any worker
// derives the same seed for the same game in any order. The values are
// fixed: runs resume and suites rebuild by the seeds it returns.
func MixSeed(seed, index uint64) uint64 {
	z := seed*0x9e3779b97f4a7c15 + index + 1
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
