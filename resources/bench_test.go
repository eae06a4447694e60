package resources

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// benchAgentText is a typical agent: cpus, mem, disk, 16 port ranges and two
// labelled dynamic reservations.
var benchAgentText = func() string {
	var ports []string
	for i := range 16 {
		b := 31000 + 100*i
		ports = append(ports, fmt.Sprintf("%d-%d", b, b+49))
	}
	return "cpus:32;mem:131072;disk:1000000;ports:[" + strings.Join(ports, ",") + "];" +
		"cpus(reservations: [(DYNAMIC,web,ops,{team: web})]):4;" +
		"mem(reservations: [(DYNAMIC,web,ops,{team: web})]):8192;" +
		"disk(reservations: [(DYNAMIC,db,dba,{team: db, tier: gold})]):50000"
}()

func benchAgent() Resources { return MustParse(benchAgentText, "*") }

// benchOffer is what a task takes from the agent: some of everything,
// reserved and not.
func benchOffer() Resources {
	return MustParse("cpus:1.5;mem:2048;disk:100;ports:[31005-31006,31410-31410];"+
		"cpus(reservations: [(DYNAMIC,web,ops,{team: web})]):1", "*")
}

func BenchmarkResources(b *testing.B) {
	agent, offer := benchAgent(), benchOffer()
	b.Run("Add", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = agent.Plus(offer)
		}
	})
	b.Run("Subtract", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = agent.Minus(offer)
		}
	})
	b.Run("AddSubtractInPlace", func(b *testing.B) {
		work := agent.Clone()
		scalars := offer.Scalars()
		b.ReportAllocs()
		for b.Loop() {
			work.Add(scalars)
			work.Subtract(scalars)
		}
	})
	b.Run("Allocate", func(b *testing.B) {
		// What every offer does: tag what it offers with the role, and give
		// back what it tagged.
		b.ReportAllocs()
		for b.Loop() {
			if offer.Allocate("web").Unallocate().IsEmpty() {
				b.Fatal("the tagged offer is empty")
			}
		}
	})
	b.Run("Contains", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !agent.Contains(offer) {
				b.Fatal("agent does not contain the offer")
			}
		}
	})
	b.Run("Equal", func(b *testing.B) {
		other := benchAgent()
		b.ReportAllocs()
		for b.Loop() {
			_ = agent.Equal(other)
		}
	})
	b.Run("Quantities", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = agent.Quantities()
		}
	})
	b.Run("AddQuantitiesTo", func(b *testing.B) {
		acc := agent.Quantities()
		b.ReportAllocs()
		for b.Loop() {
			agent.AddQuantitiesTo(&acc)
		}
	})
	b.Run("AddQuantitiesToEmpty", func(b *testing.B) {
		// What every offer does: its quantities summed into a vector
		// emptied for it.
		var acc Quantities
		b.ReportAllocs()
		for b.Loop() {
			acc.Reset()
			agent.AddQuantitiesTo(&acc)
		}
	})
	b.Run("ContainsQuantities", func(b *testing.B) {
		q := offer.Quantities()
		b.ReportAllocs()
		for b.Loop() {
			_ = agent.ContainsQuantities(q)
		}
	})
	b.Run("AllocatableTo", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = agent.AllocatableTo("web")
		}
	})
	b.Run("Parse", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(benchAgentText)))
		for b.Loop() {
			if _, err := Parse(benchAgentText, "*"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("String", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = agent.String()
		}
	})
	data, _ := json.Marshal(agent)
	b.Run("MarshalJSON", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(agent)
		}
	})
	b.Run("ParseJSON", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := Parse(string(data), "*"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkQuantities(b *testing.B) {
	total := MustParseQuantities("cpus:64;mem:262144;disk:1000000;gpus:8")
	q := MustParseQuantities("cpus:1;mem:1024;disk:100")
	excluded := NewNameSet("gpus")
	b.Run("Add", func(b *testing.B) {
		acc := total.Clone()
		b.ReportAllocs()
		for b.Loop() {
			acc.Add(q)
		}
	})
	b.Run("Subtract", func(b *testing.B) {
		acc := total.Clone()
		b.ReportAllocs()
		for b.Loop() {
			acc.items = append(acc.items[:0], total.items...)
			acc.Subtract(q)
		}
	})
	b.Run("Contains", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = total.Contains(q)
		}
	})
	b.Run("DominantShare", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = q.DominantShare(total, excluded)
		}
	})
	b.Run("LimitsContains", func(b *testing.B) {
		l := LimitsOf(total)
		b.ReportAllocs()
		for b.Loop() {
			_ = l.Contains(q)
		}
	})
}
