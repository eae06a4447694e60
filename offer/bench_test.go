package offer

import (
	"fmt"
	"strings"
	"testing"

	"github.com/allot-go/allot/resources"
)

// labelledAgent returns an offer to "web" of an agent with n dynamic
// reservations, each with its own label (so none merge), of cpus, mem and
// disk, beside unreserved resources and one persistent volume.
func labelledAgent(n int) resources.Resources {
	var b strings.Builder
	b.WriteString("cpus(allocated: web):64; mem(allocated: web):262144; disk(allocated: web):1000000; ports(allocated: web):[31000-32000]; " + vol)
	for i := range n {
		stack := fmt.Sprintf("(allocated: web)(reservations: [(DYNAMIC,web,ops,{id: r%d})])", i)
		fmt.Fprintf(&b, "; cpus%s:0.5; mem%s:1024; disk%s:10000", stack, stack, stack)
	}
	return rs(b.String())
}

func benchOps(n int) map[string]Operation {
	mid := fmt.Sprintf("(allocated: web)(reservations: [(DYNAMIC,web,ops,{id: r%d})])", n/2)
	return map[string]Operation{
		"reserve":   Reserve{Resources: rs("cpus(allocated: web)(reservations: [(DYNAMIC,web,ops,{id: new})]):1; mem(allocated: web)(reservations: [(DYNAMIC,web,ops,{id: new})]):1024")},
		"unreserve": Unreserve{Resources: rs("cpus" + mid + ":0.5; mem" + mid + ":1024")},
		"create":    Create{Volumes: rs("disk" + mid + "[id:new,principal:ops,path:new]:5000")},
		"destroy":   Destroy{Volumes: rs(vol)},
		"launch":    Launch{Tasks: []Task{{ID: "t", Resources: rs("cpus" + mid + ":0.5; mem(allocated: web):512")}}},
	}
}

var benchSink resources.Resources

func BenchmarkApply(b *testing.B) {
	for _, op := range []string{"reserve", "unreserve", "create", "destroy", "launch"} {
		for _, n := range []int{5, 50, 500} {
			if n != 50 && op != "reserve" && op != "create" {
				continue
			}
			b.Run(fmt.Sprintf("op=%s/reservations=%d", op, n), func(b *testing.B) {
				offered, o := labelledAgent(n), benchOps(n)[op]
				if _, err := Apply(offered, o); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					benchSink, _ = Apply(offered, o)
				}
			})
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	for _, op := range []string{"reserve", "create", "destroy"} {
		b.Run(fmt.Sprintf("op=%s/reservations=50", op), func(b *testing.B) {
			offered, o := labelledAgent(50), benchOps(50)[op]
			ctx := ctxWeb()
			ctx.Checkpointed = offered.Reserved("web").Unallocate()
			if err := Validate(o, ctx); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				_ = Validate(o, ctx)
			}
		})
	}
}

func BenchmarkPick(b *testing.B) {
	for _, n := range []int{5, 50, 500} {
		b.Run(fmt.Sprintf("reservations=%d", n), func(b *testing.B) {
			offered := labelledAgent(n)
			need := resources.MustParseQuantities("cpus:4; mem:4096; disk:1000")
			if _, ok := Pick(offered, need, "web"); !ok {
				b.Fatal("cannot pick")
			}
			b.ReportAllocs()
			for b.Loop() {
				benchSink, _ = Pick(offered, need, "web")
			}
		})
	}
}
