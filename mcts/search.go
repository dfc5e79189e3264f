package mcts

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"taflab/rules"
)

// Search is the search of one game: its tree, rooted at the game's current
// position. A Runner fills it with playouts; the caller then reads the
// result (BestMove, ChooseMove, Policy) and plays a move with Advance, which
// keeps the move's subtree for the next search when the config says so.
//
// A Search is used by one goroutine at a time.
type Search struct {
	cfg   *Config     // immutable, shared
	game  *rules.Game // at the root position; owned
	pcg   *rand.PCG   // rng's source, to reseed
	rng   *rand.Rand
	tree  arena // the nodes: node 0 is the root; children contiguous
	spare arena // the other arena, for compaction on Advance

	target   int32 // root visits this search aims at
	playouts int   // playouts run since the last Advance
	err      error // why Start could not start: Step returns it
	maxNodes int   // the memory budget's nodes (Config.TreeBytes)
	reserve  int   // the nodes one round's leaves may add past maxNodes
	// budget is the memory budget the search shares with others (Budget),
	// nil for none; starved is set when a round found no room in it, which
	// ends the search as a full tree does, until the next Start.
	budget      *Budget
	starved     bool
	noise       bool // mix Dirichlet noise into the root priors
	forced      bool // forced playouts and policy target pruning (Config.ForcedPlayouts)
	noisePended bool // the root is not expanded yet: noise after expansion
	// rootValue is the evaluator's value of the root for its side to move
	// (v̂ of Gumbel search's completed Q): recorded when the root is
	// expanded, worked out from the tree on Advance (see rootValueOf).
	rootValue float32
	gumbel    gumbelRoot // Gumbel root search's state; see gumbel.go

	path     []int32 // scratch: the path of the current selection
	moveBuf  []rules.Move
	gamma    distuv.Gamma
	noiseBuf []float64
	pruneBuf []float64 // Policy's pruned visits
	// rawPriors are the root's priors before addNoise mixed noise in,
	// when noised is set (Surprise reads them).
	rawPriors []float32
	noised    bool
}

// NewSearch starts a search of game's current position. The search owns
// game from then on: it makes and unmakes moves on it, and Advance plays
// moves on it. seed fixes the search's random choices (noise, move choice).
func NewSearch(cfg *Config, game *rules.Game, seed uint64) *Search {
	src := rand.NewPCG(seed, 0x5ea4c4)
	s := &Search{cfg: cfg, game: game, pcg: src, rng: rand.New(src),
		maxNodes: cfg.treeNodes(), reserve: max(cfg.LeavesPerGame, 1) * rules.MaxMoves}
	s.gamma = distuv.Gamma{Alpha: 1, Beta: 1, Src: s.rng}
	*s.tree.at(s.tree.alloc(1, s.limit())) = node{firstChild: noChildren}
	return s
}

// Reset starts the search over on game's current position with a new seed,
// keeping the memory of its tree for the next game.
func (s *Search) Reset(game *rules.Game, seed uint64) {
	s.game = game
	s.pcg.Seed(seed, 0x5ea4c4)
	s.DropTree()
}

// DropTree forgets the tree below the root, keeping the game and the random
// stream: the next search starts from nothing. Self-play with odds calls it
// before each of the weaker side's searches, which would otherwise inherit
// the stronger side's visits and play its choice.
func (s *Search) DropTree() {
	s.tree.reset()
	*s.tree.at(s.tree.alloc(1, s.limit())) = node{firstChild: noChildren}
	s.target, s.playouts, s.noise, s.noisePended, s.forced, s.noised = 0, 0, false, false, false, false
	s.rootValue = 0
	s.gumbel.reset()
}

// Game returns the game at the root. Callers read it; only Advance may
// change it.
func (s *Search) Game() *rules.Game { return s.game }

// Start prepares a search of playouts root visits (counting visits kept from
// the previous search), with root noise if noise is set: Dirichlet noise in
// the priors under PUCT, Gumbel draws under Gumbel root search (which then
// samples its moves; without noise it takes the top moves by prior).
//
// playouts must be from 1 to MaxPlayouts (CheckPlayouts): otherwise the
// search does not start, Done stays false and Runner.Step returns
// CheckPlayouts' error. A kept tree that already fills the memory budget
// (Config.TreeBytes) is dropped, so that the search has room.
func (s *Search) Start(playouts int, noise bool) {
	s.err = CheckPlayouts(playouts)
	if s.err != nil {
		playouts = 0
	}
	if s.full() {
		s.DropTree()
	}
	s.starved = false
	s.target = int32(playouts)
	s.playouts = 0
	gumbel := s.cfg.RootSearch == RootGumbel
	s.noise = noise && s.cfg.NoiseFraction > 0 && !gumbel
	s.forced = s.noise && s.cfg.ForcedPlayouts > 0
	s.noised = false // addNoise records this search's raw priors
	s.noisePended = false
	s.gumbel.reset()
	if gumbel {
		s.gumbel.noise = noise
		if s.tree.at(0).expanded() {
			s.gumbelStart()
		} else {
			s.gumbel.pended = true
		}
	}
	if s.noise {
		if s.tree.at(0).expanded() {
			s.addNoise()
		} else {
			s.noisePended = true
		}
	}
}

// Done reports whether the search has its playouts, has proven the root,
// or has filled its memory budget (Full). It is false after a Start that
// refused its playouts: Runner.Step returns the error.
func (s *Search) Done() bool {
	if s.err != nil {
		return false
	}
	root := s.tree.at(0)
	return root.visits >= s.target || root.proof != unproven || s.game.Outcome().Over() || s.full()
}

// Full reports whether the tree has reached the memory budget
// (Config.TreeBytes), which ends a search early.
func (s *Search) Full() bool { return s.full() }

func (s *Search) full() bool {
	return (s.tree.len() >= s.maxNodes || s.starved) && s.tree.at(0).expanded()
}

// shareBudget makes the search's arenas charge b (nil: none) from now on,
// charging it what they hold already.
func (s *Search) shareBudget(b *Budget) {
	s.budget, s.tree.budget, s.spare.budget = b, b, b
	if b != nil {
		b.Charge(s.TreeBytes())
	}
}

// releaseBudget gives back to the shared budget what the search's arenas
// hold, and drops them: the search is not used again.
func (s *Search) releaseBudget() {
	if s.budget != nil {
		s.budget.Release(s.TreeBytes())
	}
	s.tree, s.spare = arena{}, arena{}
}

// roomForRound makes room in the tree for a round's leaves (reserve
// nodes) within the shared budget, and reports whether there is; a search
// without one always has room. Without room the search is starved: it
// ends with the playouts it has.
func (s *Search) roomForRound() bool {
	if s.budget == nil || !s.tree.at(0).expanded() {
		return true // a root's expansion fits in the first chunk, always granted
	}
	if !s.tree.ensure(int32(s.reserve), s.limit()) {
		s.starved = true
	}
	return !s.starved
}

// limit returns the most nodes the arena should hold: the budget's, and
// one round's leaves past it.
func (s *Search) limit() int { return s.maxNodes + s.reserve }

// TreeBytes returns the memory the tree's arenas hold, in bytes: the tree
// and the spare arena tree reuse compacts into.
func (s *Search) TreeBytes() int64 { return s.tree.bytes() + s.spare.bytes() }

// wantsMore reports whether another leaf may be selected this round.
func (s *Search) wantsMore() bool {
	root := s.tree.at(0)
	return root.visits+root.inFlight < s.target && root.proof == unproven && s.tree.len() < s.maxNodes && !s.starved
}

// Playouts returns the playouts run since the last Advance.
func (s *Search) Playouts() int { return s.playouts }

// Visits returns the root's visits, those kept from earlier searches
// included.
func (s *Search) Visits() int { return int(s.tree.at(0).visits) }

// RootValue returns the search's value of the root for the side to move,
// from -1 to 1: exact when proven.
func (s *Search) RootValue() float32 {
	root := s.tree.at(0)
	if root.proof != unproven {
		return -root.proof.value()
	}
	if root.visits == 0 {
		return 0
	}
	return -root.valueSum / float32(root.visits)
}

// MoveStat is one root move's share of the search.
type MoveStat struct {
	Move   rules.Move
	Visits int
	Prior  float32
	Value  float32 // for the side to move at the root; exact when proven
	Proven bool
}

// Stats appends the root's moves with their visits, in move-generation
// order.
func (s *Search) Stats(dst []MoveStat) []MoveStat {
	root := s.tree.at(0)
	if !root.expanded() {
		return dst
	}
	for _, c := range s.tree.children(root) {
		st := MoveStat{Move: c.move, Visits: int(c.visits), Prior: c.prior, Proven: c.proof != unproven}
		switch {
		case c.proof != unproven:
			st.Value = c.proof.value()
		case c.visits > 0:
			st.Value = c.valueSum / float32(c.visits)
		}
		dst = append(dst, st)
	}
	return dst
}

// BestMove returns the move the search thinks best: a proven win, else the
// most visited move that is not a proven loss (ties: the higher prior), or
// under Gumbel root search the move sequential halving leaves.
func (s *Search) BestMove() rules.Move { return s.ChooseMove(0) }

// ChooseMove picks the move to play at temperature t: with probability
// proportional to visits^(1/t), or the best move for t near 0. A proven win
// is always taken and a proven loss never while another move is not one.
//
// Under Gumbel root search t is not used: the move is the best of the moves
// sequential halving leaves, by g + logits + sigma(q) (gumbelChoose), and
// the Gumbel draws g of a search with noise already sample it.
func (s *Search) ChooseMove(t float64) rules.Move {
	root := s.tree.at(0)
	if !root.expanded() {
		// A programmer error: call it after a search that returned no
		// error (Runner.Search, or Step until Done).
		panic("mcts: ChooseMove before any playout")
	}
	children := s.tree.children(root)
	win, allLost := provenChoice(children)
	if win >= 0 {
		return children[win].move
	}
	if s.cfg.RootSearch == RootGumbel {
		return s.gumbelChoose(children, allLost)
	}
	usable := func(c *node) bool { return allLost || c.proof != provenLoss }
	if t < 0.01 {
		return children[mostVisited(children, allLost, false)].move
	}
	// Weights visits^(1/t), scaled by the largest to stay in range.
	maxVisits := int32(0)
	for i := range children {
		if usable(&children[i]) {
			maxVisits = max(maxVisits, children[i].visits)
		}
	}
	if maxVisits == 0 {
		return s.ChooseMove(0)
	}
	total := 0.0
	for i := range children {
		if usable(&children[i]) {
			total += math.Pow(float64(children[i].visits)/float64(maxVisits), 1/t)
		}
	}
	x := s.rng.Float64() * total
	last := -1
	for i := range children {
		if !usable(&children[i]) || children[i].visits == 0 {
			continue
		}
		last = i
		x -= math.Pow(float64(children[i].visits)/float64(maxVisits), 1/t)
		if x < 0 {
			return children[i].move
		}
	}
	return children[last].move
}

// Temperature returns the schedule's temperature at a ply.
func (c *Config) Temperature(ply int) float64 {
	return c.TemperatureEnd + (c.TemperatureStart-c.TemperatureEnd)*math.Exp2(-float64(ply)/c.TemperatureHalfLife)
}

// Advance plays m, which must be legal, on the game, and moves the root to
// its child, keeping the child's subtree when tree reuse is on.
func (s *Search) Advance(m rules.Move) error {
	if !s.game.IsLegal(m) {
		return fmt.Errorf("mcts: advance by %s: not a legal move in %s", m, s.game.Position())
	}
	root := s.tree.at(0)
	child := int32(-1)
	if root.expanded() {
		for i, c := range s.tree.children(root) {
			if c.move == m {
				child = root.firstChild + int32(i)
				break
			}
		}
	}
	s.game.Make(m)
	// A subtree the shared budget has no room for is given up: the next
	// search starts afresh.
	if !(child >= 0 && s.cfg.TreeReuse && compact(&s.spare, &s.tree, child, s.limit())) {
		s.spare.reset()
		*s.spare.at(s.spare.alloc(1, s.limit())) = node{firstChild: noChildren}
	}
	s.tree, s.spare = s.spare, s.tree
	root = s.tree.at(0)
	if !root.expanded() {
		// A child proven without being expanded (a king's move the
		// escape solver found winning) is searched afresh: its proof came
		// from a search this one no longer holds, and its visits are only
		// that proof's.
		*root = node{firstChild: noChildren}
	}
	root.move, root.prior = 0, 0
	s.noised = false
	s.rootValue = s.rootValueOf()
	s.gumbel.reset()
	return nil
}

// rootValueOf works out the evaluator's value of a kept root for its side
// to move, which the tree does not store: a node's first visit is its own
// evaluation and every later one passes through a child, which backs up the
// negation of what the node gets, so the node's value sum is -v̂ minus its
// children's sums. Exact but for float32 rounding in the sums (whose weight
// in the mixed value is 1/(1 + visits), small when there are many), and
// not meaningful for a proven root (whose visits skip its children), which
// the search does not search. 0 for a root not expanded.
func (s *Search) rootValueOf() float32 {
	root := s.tree.at(0)
	if !root.expanded() {
		return 0
	}
	sum := float64(root.valueSum)
	for _, c := range s.tree.children(root) {
		sum += float64(c.valueSum)
	}
	return float32(max(-1, min(1, -sum)))
}

// addNoise mixes Dirichlet noise into the root's priors: alpha is
// DirichletAlphaTotal divided by the number of legal moves, so that the noise
// has the same total weight in every position.
func (s *Search) addNoise() {
	root := s.tree.at(0)
	children := s.tree.children(root)
	s.gamma.Alpha = s.cfg.DirichletAlphaTotal / float64(len(children))
	s.noiseBuf = s.noiseBuf[:0]
	sum := 0.0
	for range children {
		x := s.gamma.Rand()
		s.noiseBuf = append(s.noiseBuf, x)
		sum += x
	}
	if sum <= 0 {
		return
	}
	frac := float32(s.cfg.NoiseFraction)
	s.rawPriors = s.rawPriors[:0]
	for i := range children {
		s.rawPriors = append(s.rawPriors, children[i].prior)
	}
	s.noised = true
	for i := range children {
		children[i].prior = (1-frac)*children[i].prior + frac*float32(s.noiseBuf[i]/sum)
	}
}

// Policy appends the search's policy at the root (the training target), one
// entry per legal move in move-generation order: all of it on a proven win
// when there is one (the move ChooseMove plays), else each move's share of
// the root children's visits, or uniform if none has any; with forced
// playouts (Config.ForcedPlayouts, a search with noise) the visits with
// the forced ones taken back (prunedVisits). Under Gumbel root search it
// is the improved policy softmax(logits + sigma(completed Q)) instead of
// the visit shares (gumbelPolicy).
func (s *Search) Policy(dst []rules.MoveProb) []rules.MoveProb {
	root := s.tree.at(0)
	if !root.expanded() {
		return dst
	}
	children := s.tree.children(root)
	won := -1
	total := 0
	for i := range children {
		total += int(children[i].visits)
		if won < 0 && children[i].proof == provenWin {
			won = i
		}
	}
	if won < 0 && s.cfg.RootSearch == RootGumbel {
		return s.gumbelPolicy(dst, children)
	}
	if won < 0 && s.forced && total > 0 {
		if cap(s.pruneBuf) < len(children) {
			s.pruneBuf = make([]float64, len(children))
		}
		visits := s.pruneBuf[:len(children)]
		if sum := prunedVisits(children, s.cfg.ForcedPlayouts, s.cfg.CPuct, root.visits, visits); sum > 0 {
			for i := range children {
				dst = append(dst, rules.MoveProb{Move: children[i].move, Prob: float32(visits[i] / sum)})
			}
			return dst
		}
	}
	for i := range children {
		var p float32
		switch {
		case won >= 0:
			if i == won {
				p = 1
			}
		case total > 0:
			p = float32(children[i].visits) / float32(total)
		default:
			p = 1 / float32(len(children))
		}
		dst = append(dst, rules.MoveProb{Move: children[i].move, Prob: p})
	}
	return dst
}

// Surprise returns how far a policy target is from the evaluator's prior
// at the root: the KL divergence, sum of t ln(t / p) over the root's moves
// in nats, t the target (target[i] the i-th move in move-generation order,
// as Policy writes it) and p the prior before any root noise (KataGo's
// policy surprise). 0 before the root is expanded.
func (s *Search) Surprise(target []rules.MoveProb) float32 {
	root := s.tree.at(0)
	if !root.expanded() {
		return 0
	}
	children := s.tree.children(root)
	kl := 0.0
	for i := range min(len(children), len(target)) {
		t := float64(target[i].Prob)
		if t <= 0 {
			continue
		}
		p := float64(children[i].prior)
		if s.noised && i < len(s.rawPriors) {
			p = float64(s.rawPriors[i])
		}
		kl += t * math.Log(t/max(p, 1e-6))
	}
	return float32(max(kl, 0))
}

// provenChoice returns the index of a child proven a win for the player to
// move (the first, or -1 when none is), and whether every child is proven
// a loss.
func provenChoice(children []node) (win int, allLost bool) {
	allLost = true
	for i := range children {
		switch children[i].proof {
		case provenWin:
			return i, false
		case provenLoss:
		default:
			allLost = false
		}
	}
	return -1, allLost
}

// mostVisited returns the index of the most visited child (ties: the
// higher prior) that is not a proven loss unless allLost is, and when
// visited is set, that has been visited or proven; -1 when none is.
func mostVisited(children []node, allLost, visited bool) int {
	best := -1
	for i := range children {
		c := &children[i]
		if !allLost && c.proof == provenLoss || visited && c.visits == 0 && c.proof == unproven {
			continue
		}
		if best < 0 || c.visits > children[best].visits || c.visits == children[best].visits && c.prior > children[best].prior {
			best = i
		}
	}
	return best
}
