package sortertest

import (
	"fmt"
	"math"

	"github.com/allot-go/allot/sorter"
)

// Weights: which ones UpdateWeight accepts (Run), and how they divide
// shares, a client's or a subtree's (RunFair).

// weights checks that UpdateWeight refuses weights that are not finite and
// above zero with sorter.ErrInvalidWeight, and accepts a path not (yet) in
// the sorter.
func weights(c checker) {
	for _, w := range []float64{0, -1, nan(), inf(1), inf(-1)} {
		c.fails(c.s.UpdateWeight("a", w), sorter.ErrInvalidWeight, fmt.Sprintf("UpdateWeight(a, %v)", w))
	}
	c.ok(c.s.UpdateWeight("not/yet/there", 3), "UpdateWeight of a path not in the tree")
	c.ok(c.s.UpdateWeight("not/yet/there", 1), "UpdateWeight back to 1")
	c.add("a")
	c.activate("a")
	c.ok(c.s.UpdateWeight("a", 0.5), "UpdateWeight(a, 0.5)")
	c.members("a")
}

// fairWeights checks that a client's share is divided by its weight.
func fairWeights(c checker) {
	// Mesos's WDRF test: a share is divided by its client's weight.
	c.pool("cpus:100;mem:100")
	c.add("a", "b", "c", "d")
	c.activate("a", "b", "c", "d")
	c.ok(c.s.UpdateWeight("b", 2), "UpdateWeight(b, 2)")
	c.ok(c.s.UpdateWeight("d", 10), "UpdateWeight(d, 10)")
	c.alloc("a", "s1", "cpus:5;mem:5")   // .05
	c.alloc("b", "s1", "cpus:6;mem:6")   // .06 / 2 = .03
	c.alloc("c", "s1", "cpus:4;mem:4")   // .04
	c.alloc("d", "s1", "cpus:10;mem:20") // .20 / 10 = .02
	c.order("d", "b", "c", "a")
	c.ok(c.s.UpdateWeight("d", 1), "UpdateWeight(d, 1)")
	c.order("b", "c", "a", "d")
	c.ok(c.s.UpdateWeight("a", 5), "UpdateWeight(a, 5)") // .01
	c.order("a", "b", "c", "d")
}

// weightBeforeAdd checks that a weight set before its client exists applies
// to it, and outlasts its removal.
func weightBeforeAdd(c checker) {
	c.pool("cpus:100")
	c.ok(c.s.UpdateWeight("b", 4), "UpdateWeight(b, 4)")
	c.add("a", "b")
	c.activate("a", "b")
	c.alloc("a", "s1", "cpus:10") // .10
	c.alloc("b", "s1", "cpus:20") // .20 / 4 = .05
	c.order("b", "a")
	c.ok(c.s.Remove("b"), "Remove(b)")
	c.add("b")
	c.activate("b")
	c.alloc("b", "s1", "cpus:20")
	c.order("b", "a")
}

// subtreeWeight checks that a weight on an inner path divides its subtree's
// share.
func subtreeWeight(c checker) {
	c.pool("cpus:100")
	c.add("a/x", "a/y", "b")
	c.activate("a/x", "a/y", "b")
	c.alloc("a/x", "s1", "cpus:20")
	c.alloc("a/y", "s1", "cpus:10") // a .30
	c.alloc("b", "s1", "cpus:20")   // b .20
	c.order("b", "a/y", "a/x")
	c.ok(c.s.UpdateWeight("a", 2), "UpdateWeight(a, 2)") // a .15
	c.order("a/y", "a/x", "b")
}

// nan and inf make the weights that are not numbers, or not finite.
func nan() float64         { return math.NaN() }
func inf(sign int) float64 { return math.Inf(sign) }
