package sorter

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/allot-go/allot/resources"
)

var lazySeed = flag.Uint64("lazy.seed", 0, "seed of TestLazyDRFIsDRF; 0 picks one from the clock")

// lazyTarget is what a LazyDRF and a DRF sorter are both called through.
type lazyTarget interface {
	Sorter
	Charger
	Allowances
}

// lazyPair drives a LazyDRF and a DRF sorter with the same calls.
type lazyPair struct {
	lazy *LazyDRF
	drf  *DRF
	log  []string
}

func (p *lazyPair) both(name string, f func(s lazyTarget) error) error {
	p.log = append(p.log, name)
	errL, errD := f(p.lazy), f(p.drf)
	if fmt.Sprint(errL) != fmt.Sprint(errD) {
		return fmt.Errorf("%s: LazyDRF returned %v, DRF %v", name, errL, errD)
	}
	return nil
}

// onClient is both for a call that names one client.
func (p *lazyPair) onClient(name, client string, call func(lazyTarget, string) error) error {
	return p.both(name+" "+client, func(s lazyTarget) error { return call(s, client) })
}

// compare returns how the two sorters' answers differ, if they do.
func (p *lazyPair) compare(clients []string) error {
	if got, want := p.lazy.Sort(), p.drf.Sort(); !slices.Equal(got, want) {
		return fmt.Errorf("Sort: %q, want %q", got, want)
	}
	if got, want := p.lazy.Count(), p.drf.Count(); got != want {
		return fmt.Errorf("Count: %d, want %d", got, want)
	}
	for _, c := range clients {
		gi, gok := p.lazy.Index(c)
		wi, wok := p.drf.Index(c)
		if gi != wi || gok != wok || p.lazy.Contains(c) != p.drf.Contains(c) {
			return fmt.Errorf("client %q: Index %d %v, Contains %v; want %d %v, %v", c, gi, gok, p.lazy.Contains(c), wi, wok, p.drf.Contains(c))
		}
		if got, want := p.lazy.ShareOf(c), p.drf.ShareOf(c); got != want {
			return fmt.Errorf("ShareOf(%q): %v, want %v", c, got, want)
		}
		if got, want := p.lazy.AllocationQuantities(c), p.drf.AllocationQuantities(c); !got.Equal(want) {
			return fmt.Errorf("AllocationQuantities(%q): %s, want %s", c, got, want)
		}
		if got, want := fmt.Sprint(p.lazy.Allocation(c)), fmt.Sprint(p.drf.Allocation(c)); got != want {
			return fmt.Errorf("Allocation(%q): %s, want %s", c, got, want)
		}
	}
	walked := func(s Indexed, skip Bitset) []string {
		var out []string
		s.WalkExcept(skip, func(c string) bool { out = append(out, c); return true })
		return out
	}
	var none, first Bitset
	first.Set(0)
	for _, skip := range []Bitset{none, first} {
		if got, want := walked(p.lazy, skip), walked(p.drf, skip); !slices.Equal(got, want) {
			return fmt.Errorf("WalkExcept(%v): %q, want %q", skip, got, want)
		}
	}
	got, _ := p.lazy.MarshalBinary()
	want, _ := p.drf.MarshalBinary()
	if !bytes.Equal(got, want) {
		return fmt.Errorf("snapshots differ:\nLazyDRF %x\nDRF     %x", got, want)
	}
	if gd, wd := p.lazy.Describe(), p.drf.Describe(); gd != wd {
		return fmt.Errorf("Describe:\n%s\nwant\n%s", gd, wd)
	}
	return nil
}

// LazyDRF answers as DRF after every call of random sequences that keep
// one client most of the time (so the tree is seldom built), with charges,
// pool totals, removals, failing calls, and now and then a second client,
// an allocation on an agent, a weight or an allowance.
func TestLazyDRFIsDRF(t *testing.T) {
	seed := *lazySeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	clients := []string{"a", "b", "x/y", "x"}
	qty := func() resources.Quantities {
		var q resources.Quantities
		q.Set("cpus", float64(rng.IntN(4)))
		q.Set("mem", float64(rng.IntN(3)*512))
		return q
	}
	stayedLazy := 0
	for seq := range 400 {
		cfg := Config{}
		if seq%3 == 0 {
			cfg.FairnessExcluded = resources.NewNameSet("mem")
		}
		p := &lazyPair{lazy: NewLazyDRF(cfg), drf: NewDRF(cfg)}
		one := clients[rng.IntN(len(clients))]
		for range 60 {
			c := one
			if rng.IntN(40) == 0 {
				c = clients[rng.IntN(len(clients))]
			}
			k := rng.IntN(100)
			if k >= 86 && k < 90 && rng.IntN(4) != 0 {
				// What builds the tree, seldom: most sequences should go
				// a long way on the one client's fields.
				k = 30
			}
			var err error
			switch {
			case k < 12:
				err = p.onClient("Add", c, lazyTarget.Add)
			case k < 16:
				err = p.onClient("Remove", c, lazyTarget.Remove)
			case k < 26:
				err = p.onClient("Activate", c, lazyTarget.Activate)
			case k < 30:
				err = p.onClient("Deactivate", c, lazyTarget.Deactivate)
			case k < 55:
				q, counted := qty(), rng.IntN(2) == 0
				err = p.both(fmt.Sprintf("Charge %s %s %v", c, q, counted), func(s lazyTarget) error {
					return s.Charge(c, q, counted)
				})
			case k < 70:
				q := qty()
				err = p.both(fmt.Sprintf("Discharge %s %s", c, q), func(s lazyTarget) error {
					return s.Discharge(c, q)
				})
			case k < 82:
				agent, q := []string{"p", "q"}[rng.IntN(2)], qty()
				q.Set("cpus", float64(8+rng.IntN(8)))
				err = p.both(fmt.Sprintf("AddAgent %s %s", agent, q), func(s lazyTarget) error {
					s.AddAgent(agent, q)
					return nil
				})
			case k < 86:
				agent := []string{"p", "q"}[rng.IntN(2)]
				err = p.both("RemoveAgent "+agent, func(s lazyTarget) error {
					return s.RemoveAgent(agent)
				})
			case k < 88:
				r := resources.MustParse("cpus:1;mem:128", "*")
				err = p.both("Allocated "+c, func(s lazyTarget) error {
					return s.Allocated(c, "p", r)
				})
			case k < 89:
				err = p.both("UpdateWeight "+c, func(s lazyTarget) error {
					return s.UpdateWeight(c, 2)
				})
			case k < 90:
				err = p.both("SetAllowance "+c, func(s lazyTarget) error {
					return s.SetAllowance(c, resources.MustParseQuantities("cpus:1"))
				})
			case k < 92:
				err = p.both("Add of an invalid path", func(s lazyTarget) error {
					return s.Add("a//b")
				})
			default:
				// A snapshot of the LazyDRF restores into a LazyDRF and a DRF
				// that answer as the originals do.
				data, _ := p.lazy.MarshalBinary()
				lazy, drf := NewLazyDRF(cfg), NewDRF(cfg)
				if errL, errD := lazy.UnmarshalBinary(data), drf.UnmarshalBinary(data); errL != nil || errD != nil {
					t.Fatalf("seed %d, sequence %d: restoring %x: %v, %v\n%s", seed, seq, data, errL, errD, strings.Join(p.log, "\n"))
				}
				// The sequence goes on with the restored pair.
				p.lazy, p.drf = lazy, drf
				p.log = append(p.log, "snapshot and restore")
			}
			if err == nil {
				err = p.compare(append(clients, "x/y/.", "x/."))
			}
			if err != nil {
				t.Fatalf("seed %d (-lazy.seed), sequence %d: %v\nafter:\n%s", seed, seq, err, strings.Join(p.log, "\n"))
			}
		}
		if p.lazy.d == nil {
			stayedLazy++
		}
	}
	t.Logf("seed %d: %d of 400 sequences ended without the tree", seed, stayedLazy)
	if stayedLazy == 0 {
		t.Errorf("seed %d: every sequence built the tree: the one-client fields were never what answered", seed)
	}
}

// A sorter of one client, charged and discharged, keeps no tree, and a
// second client builds it with the first one's figures.
func TestLazyDRFBuildsOnSecondClient(t *testing.T) {
	l := NewLazyDRF(Config{})
	l.AddAgent("pool", resources.MustParseQuantities("cpus:10;mem:100"))
	if err := l.Add("f1"); err != nil {
		t.Fatal(err)
	}
	_ = l.Activate("f1")
	for range 3 {
		_ = l.Charge("f1", resources.MustParseQuantities("cpus:1"), true)
	}
	_ = l.Discharge("f1", resources.MustParseQuantities("cpus:1"))
	if l.d != nil {
		t.Fatal("one client, charged: the tree was built")
	}
	if got := l.ShareOf("f1"); got != 0.2 {
		t.Fatalf("ShareOf(f1) = %v, want 0.2", got)
	}
	if err := l.Add("f2"); err != nil {
		t.Fatal(err)
	}
	_ = l.Activate("f2")
	if l.d == nil {
		t.Fatal("a second client: the tree was not built")
	}
	if got := l.Sort(); !slices.Equal(got, []string{"f2", "f1"}) {
		t.Fatalf("Sort = %q, want f2 (nothing held) before f1", got)
	}
	var f1 Share
	for _, s := range l.Shares() {
		if s.Client == "f1" {
			f1 = s
		}
	}
	if f1.Count != 3 || f1.Share != 0.2 || !f1.Active {
		t.Fatalf("f1 after the build: %+v, want count 3, share 0.2, active", f1)
	}
}

// A snapshot restores into a LazyDRF that answers as a DRF restored from
// it, before and after further calls; the one client's fields take the
// state only when they can stand for it.
func TestLazyDRFRestore(t *testing.T) {
	cpus := resources.MustParseQuantities("cpus:1")
	for _, c := range []struct {
		name  string
		setup func(s *DRF)
		lazy  bool // the restored sorter keeps no tree
	}{
		{"one client, charged", func(s *DRF) {
			_ = s.Add("f")
			_ = s.Activate("f")
			_ = s.Charge("f", cpus, true)
		}, true},
		{"one client left, its number free", func(s *DRF) {
			_ = s.Add("f")
			_ = s.Remove("f")
		}, true},
		{"a parent that counted a removed client", func(s *DRF) {
			_ = s.Add("x/y")
			_ = s.Add("x/z")
			_ = s.Charge("x/y", cpus, true)
			_ = s.Charge("x/z", cpus, true)
			_ = s.Remove("x/z")
		}, false},
		{"a holding on an agent", func(s *DRF) {
			_ = s.Add("f")
			_ = s.Allocated("f", "p", resources.MustParse("cpus:1", "*"))
		}, false},
		{"the client's number is 1", func(s *DRF) {
			_ = s.Add("e")
			_ = s.Add("f")
			_ = s.Remove("e")
		}, false},
		{"two free numbers", func(s *DRF) {
			_ = s.Add("e")
			_ = s.Add("f")
			_ = s.Remove("e")
			_ = s.Remove("f")
		}, false},
		{"an empty allocation on an agent: counted, nothing held", func(s *DRF) {
			_ = s.Add("f")
			_ = s.Allocated("f", "p", resources.Resources{})
		}, true},
		{"a parent counted more than its one client (as a snapshot may say)", func(s *DRF) {
			_ = s.Add("x/y")
			_ = s.Charge("x/y", cpus, true)
			s.t.find("x").count = 5
		}, false},
		{"a weight", func(s *DRF) {
			_ = s.Add("f")
			_ = s.UpdateWeight("f", 2)
			_ = s.Charge("f", cpus, true)
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := NewDRF(Config{})
			src.AddAgent("pool", resources.MustParseQuantities("cpus:10;mem:100"))
			c.setup(src)
			data, _ := src.MarshalBinary()
			p := &lazyPair{lazy: NewLazyDRF(Config{}), drf: NewDRF(Config{})}
			if err := p.lazy.UnmarshalBinary(data); err != nil {
				t.Fatal(err)
			}
			if err := p.drf.UnmarshalBinary(data); err != nil {
				t.Fatal(err)
			}
			if got := p.lazy.d == nil; got != c.lazy {
				t.Errorf("restored without a tree: %v, want %v", got, c.lazy)
			}
			names := []string{"e", "f", "x", "x/y", "x/z", "z"}
			if err := p.compare(names); err != nil {
				t.Fatalf("restored: %v", err)
			}
			for _, call := range []func(s lazyTarget) error{
				func(s lazyTarget) error {
					return s.Add("x/w")
				},
				func(s lazyTarget) error {
					return s.Charge("x/w", cpus, true)
				},
			} {
				if err := p.both("a call", call); err != nil {
					t.Fatal(err)
				}
				if err := p.compare(append(names, "x/w")); err != nil {
					t.Fatalf("after a call: %v", err)
				}
			}
		})
	}
}

// TestLazyDRFIsSmall: the sorter of one framework keeps no sum of its
// agents' totals beside them (an allocator's framework sorters have one
// agent, the pool), so its record fits the 160-byte size class.
func TestLazyDRFIsSmall(t *testing.T) {
	if got := unsafe.Sizeof(LazyDRF{}); got > 144 {
		t.Fatalf("a LazyDRF takes %d bytes, want at most 144", got)
	}
}

// A sorter keeps the totals it is given (Sorter.AddAgent lets it): a
// change of an agent's total copies nothing, in the DRF sorter as in
// LazyDRF, so the allocator's one copy of the cluster's totals a change
// is all there is.
func TestAddAgentKeepsTheTotal(t *testing.T) {
	small, large := resources.MustParseQuantities("cpus:4;mem:1024"), resources.MustParseQuantities("cpus:8;mem:2048")
	for name, s := range map[string]Sorter{"DRF": NewDRF(Config{}), "LazyDRF": NewLazyDRF(Config{})} {
		if err := s.Add("c"); err != nil {
			t.Fatal(err)
		}
		s.AddAgent("pool", small)
		n := testing.AllocsPerRun(50, func() {
			s.AddAgent("pool", large)
			s.AddAgent("pool", small)
		})
		if n != 0 {
			t.Errorf("%s: %v allocations for two changes of the pool", name, n)
		}
	}
}
