// The shuffled scheduler (Config.ShuffleSeed, CUGEN_SOFT_SHUFFLE): each CTA's
// warps run in an order drawn from the seed and the CTA's index, switching
// at random points, to shake out code that depends on the order warps run
// in; and the yields put into loops at load (a backward branch under the
// shuffler, a polling loop always) so that a spinning warp gives way.

package exec

import (
	"math/rand/v2"
	"slices"
)

// shuffler is the shuffled scheduler's random source (Options.ShuffleSeed),
// seeded afresh for each CTA from the seed and the CTA's index, so a run
// repeats whatever worker takes the CTA.
type shuffler struct {
	seed  uint64
	src   rand.PCG
	r     *rand.Rand
	order []*warp
}

func newShuffler(seed uint64, warps []*warp) *shuffler {
	s := &shuffler{seed: seed, order: append([]*warp(nil), warps...)}
	s.r = rand.New(&s.src)
	return s
}

// yieldInLoops lets the shuffled scheduler end a run at p's backward
// branches: a run otherwise ends only at divergence, a barrier or its stop
// pc, which a loop never passes.
func yieldInLoops(p *Program) {
	for i := range p.code {
		if in := &p.code[i]; in.op == opBra && in.aux <= int32(i) {
			in.op = opBraYield
		}
	}
}

// yieldInSpins makes the backward branches that close a polling loop (one
// whose body reads memory with ld.volatile, ld.relaxed or ld.acquire) end
// their warp's run each time round, so that the warps it waits for get to
// run: cooperative groups' multi-warp cg::reduce has the warps of a
// partition wait, spinning on ld.acquire of the reserved shared memory,
// for the one that arrives last. Without it the first warp to spin would
// keep the worker forever.
func yieldInSpins(p *Program) {
	for i := range p.code {
		in := &p.code[i]
		if in.op != opBra || in.aux > int32(i) {
			continue
		}
		for k := in.aux; k < int32(i); k++ {
			if s := p.src[k]; s != nil && s.Op == "ld" && slices.ContainsFunc(s.Mods, func(m string) bool {
				return m == "volatile" || m == "relaxed" || m == "acquire"
			}) {
				in.op = opBraSpin
				break
			}
		}
	}
}

// schedule is the order of the warps in the next round: as they are, or
// shuffled.
func (c *cta) schedule() []*warp {
	s := c.shuf
	if s == nil {
		return c.warps
	}
	s.r.Shuffle(len(s.order), func(i, j int) { s.order[i], s.order[j] = s.order[j], s.order[i] })
	return s.order
}
