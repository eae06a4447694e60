package offer

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/allot-go/allot/resources"
	"github.com/stretchr/testify/require"
)

func TestKindString(t *testing.T) {
	want := map[Kind]string{
		KindLaunch: "LAUNCH", KindReserve: "RESERVE", KindUnreserve: "UNRESERVE",
		KindCreate: "CREATE", KindDestroy: "DESTROY", KindGrowVolume: "GROW_VOLUME",
		KindShrinkVolume: "SHRINK_VOLUME", 0: "Kind(0)", 99: "Kind(99)",
	}
	for k, s := range want {
		eq(t, k.String(), s)
	}
	ops := []Operation{Launch{}, Reserve{}, Unreserve{}, Create{}, Destroy{}, GrowVolume{}, ShrinkVolume{}}
	for i, op := range ops {
		eq(t, op.Kind(), Kind(i+1))
		expect(t, strings.HasPrefix(op.String(), op.Kind().String()), "%s", op.String())
	}
}

func TestOperationString(t *testing.T) {
	l := Launch{Tasks: []Task{{ID: "t1", Resources: rs("cpus:1")}}, Executor: rs("mem:32")}
	eq(t, l.String(), "LAUNCH [t1: cpus:1] executor: mem:32")
	eq(t, Reserve{Resources: rs("cpus(reservations: [(DYNAMIC,web,ops)]):1"), Source: rs("cpus:1")}.String(), "RESERVE cpus(reservations: [(DYNAMIC,web,ops)]):1 from cpus:1")
	eq(t, ShrinkVolume{Volume: one(t, "disk:1"), Subtract: resources.MustScalar(0.5)}.String(), "SHRINK_VOLUME disk:1 by 0.5")
}

// TestConversions checks the consumed and converted resources of every
// kind of operation.
func TestConversions(t *testing.T) {
	cases := []struct {
		name string
		op   Operation
		want [][2]string // consumed, converted
	}{
		{"reserve", Reserve{Resources: rs(resCPUs)},
			[][2]string{{"cpus(allocated: web):2", resCPUs}}},
		{"reserve/refine", Reserve{Resources: rs(refinedCPUs)},
			[][2]string{{parentCPUs, refinedCPUs}}},
		{"reserve/source", Reserve{Resources: rs(refinedCPUs), Source: rs("cpus(allocated: web/api):2")},
			[][2]string{{"cpus(allocated: web/api):2", refinedCPUs}}},
		{"unreserve", Unreserve{Resources: rs(resCPUs + ";" + refinedCPUs)},
			[][2]string{{resCPUs, "cpus(allocated: web):2"}, {refinedCPUs, parentCPUs}}},
		{"create", Create{Volumes: rs(vol)}, [][2]string{{resDisk, vol}}},
		{"create/shared", Create{Volumes: rs(sharedVol)}, [][2]string{{resDisk, sharedVol}}},
		{"create/mount", Create{Volumes: rs(mountVol)}, [][2]string{{mountDisk, mountVol}}},
		{"destroy", Destroy{Volumes: rs(vol)}, [][2]string{{vol, resDisk}}},
		{"grow", GrowVolume{Volume: one(t, vol), Addition: rs(strings.Replace(resDisk, "1024", "512", 1))},
			[][2]string{{vol + ";" + strings.Replace(resDisk, "1024", "512", 1), strings.Replace(vol, "1024", "1536", 1)}}},
		{"shrink", ShrinkVolume{Volume: one(t, vol), Subtract: resources.Units(256)},
			[][2]string{{vol, strings.Replace(vol, "1024", "768", 1) + ";" + strings.Replace(resDisk, "1024", "256", 1)}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			convs, err := Conversions(c.op)
			require.NoError(t, err)
			if len(convs) != len(c.want) {
				t.Fatalf("got %d, want %d", len(convs), len(c.want))
			}
			for i, w := range c.want {
				expect(t, convs[i].Consumed.Equal(rs(w[0])), "consumed %s, want %s", convs[i].Consumed, w[0])
				expect(t, convs[i].Converted.Equal(rs(w[1])), "converted %s, want %s", convs[i].Converted, w[1])
				expect(t, convs[i].Consumed.Quantities().Equal(convs[i].Converted.Quantities()), "conversion %s changes amounts", convs[i])
			}
		})
	}
	convs, err := Conversions(Launch{Tasks: []Task{{ID: "t", Resources: rs(webCPUs)}}})
	require.NoError(t, err)
	expect(t, convs == nil, "want nil")
}

func TestConversionsShareNoStorage(t *testing.T) {
	op := Reserve{Resources: rs(resCPUs)}
	convs, err := Conversions(op)
	require.NoError(t, err)
	convs[0].Converted.Add(rs(resCPUs))
	eq(t, op.Resources.String(), rs(resCPUs).String())
}

func TestApply(t *testing.T) {
	offered := agent()
	got, err := Apply(offered,
		Reserve{Resources: rs(resDisk)},
		Create{Volumes: rs(vol)},
		Reserve{Resources: rs(resCPUs)},
		Unreserve{Resources: rs(resCPUs)},
	)
	require.NoError(t, err)
	want := rs("cpus(allocated: web):4; mem(allocated: web):4096; disk(allocated: web):7168;" + webPorts + ";" + vol)
	sameRes(t, got, want)
	expect(t, offered.Equal(agent()), "Apply changed its argument: %s", offered)
}

func TestApplyAllOrNothing(t *testing.T) {
	offered := agent()
	before := offered.String()
	got, err := Apply(offered,
		Reserve{Resources: rs(resCPUs)},
		Unreserve{Resources: rs(resCPUs)},
		Unreserve{Resources: rs(resCPUs)}, // already unreserved
	)
	if err == nil {
		t.Fatal("no error")
	}
	wantErr(t, err, ErrDoesNotContain)
	var opErr *OpError
	expect(t, errors.As(err, &opErr), "%v is no OpError", err)
	eq(t, opErr.Index, 2)
	eq(t, opErr.Kind, KindUnreserve)
	expect(t, strings.HasPrefix(err.Error(), "offer: operation 2 (UNRESERVE): operation does not apply"), "%s", err.Error())
	eq(t, got.String(), before)
	eq(t, offered.String(), before)
}

func TestApplyErrorNamesRule(t *testing.T) {
	_, err := Apply(agent(), Unreserve{Resources: rs("cpus(ops):2")})
	if err == nil {
		t.Fatal("no error")
	}
	wantErr(t, err, ErrNotDynamicallyReserved)
	eq(t, err.Error(), "offer: operation 0 (UNRESERVE): resource is not dynamically reserved: cpus(ops):2")
}

func TestApplyNoOperations(t *testing.T) {
	got, err := Apply(agent())
	require.NoError(t, err)
	sameRes(t, got, agent())
}

func TestApplyDoesNotContain(t *testing.T) {
	cases := map[string]Operation{
		"reserve more than offered": Reserve{Resources: rs("cpus(allocated: web)(reservations: [(DYNAMIC,web,ops)]):5")},
		"reserve for another role":  Reserve{Resources: rs("cpus(allocated: db)(reservations: [(DYNAMIC,db,ops)]):1")},
		"unreserve alien resources": Unreserve{Resources: rs("cpus(allocated: web)(reservations: [(DYNAMIC,web,other)]):1")},
		"volume larger than disk":   Create{Volumes: rs(strings.Replace(vol, "1024", "2048", 1))},
		"partial MOUNT volume":      Create{Volumes: rs(strings.Replace(mountVol, "2048", "1024", 1))},
		"destroy missing volume":    Destroy{Volumes: rs(strings.Replace(vol, "id:data", "id:other", 1))},
		"grow beyond offer":         GrowVolume{Volume: one(t, vol), Addition: rs(strings.Replace(resDisk, "1024", "4096", 1))},
		"shrink missing volume":     ShrinkVolume{Volume: one(t, strings.Replace(vol, "id:data", "id:other", 1)), Subtract: resources.Units(1)},
		"launch more than offered":  Launch{Tasks: []Task{{ID: "t", Resources: rs("cpus(allocated: web):5")}}},
	}
	offered := agent().Plus(rs(resDisk + ";" + vol + ";" + mountDisk))
	for name, op := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Apply(offered, op)
			wantErr(t, err, ErrDoesNotContain)
			sameRes(t, got, offered)
		})
	}
	t.Run("ok", func(t *testing.T) {
		_, err := Apply(offered, Create{Volumes: rs(mountVol)}, ShrinkVolume{Volume: one(t, vol), Subtract: resources.Units(1)})
		require.NoError(t, err)
	})
}

func TestApplyOperationConsumesOnlyWhatWasThere(t *testing.T) {
	// Unreserving the refinement makes a reservation for the parent; the
	// same UNRESERVE cannot then unreserve that parent too.
	offered := rs(refinedCPUs)
	_, err := Apply(offered, Unreserve{Resources: rs(refinedCPUs + ";" + parentCPUs)})
	wantErr(t, err, ErrDoesNotContain)
	got, err := Apply(offered, Unreserve{Resources: rs(refinedCPUs)}, Unreserve{Resources: rs(parentCPUs)})
	require.NoError(t, err)
	sameRes(t, got, rs("cpus(allocated: web/api):2"))
}

func TestApplyTwoIdenticalMountDisks(t *testing.T) {
	// Two MOUNT disks with the same root never merge; one offered disk
	// cannot be consumed twice.
	offered := rs(mountDisk)
	_, err := Apply(offered, Create{Volumes: rs(mountVol)}, Create{Volumes: rs(strings.Replace(mountVol, "id:ssd", "id:ssd2", 1))})
	wantErr(t, err, ErrDoesNotContain)
	expect(t, !fits(offered, rs(mountDisk+";"+mountDisk)), "want !%s", `fits(offered, rs(mountDisk+";"+mountDisk))`)
	expect(t, fits(rs(mountDisk+";"+mountDisk), rs(mountDisk+";"+mountDisk)), "want %s", `fits(rs(mountDisk+";"+mountDisk), rs(mountDisk+";"+mountDisk))`)
}

func TestApplyLaunch(t *testing.T) {
	offered := agent()
	task := func(id, text string) Task { return Task{ID: id, Resources: rs(text)} }

	t.Run("fits", func(t *testing.T) {
		a, err := ApplyAll(offered,
			Launch{Tasks: []Task{task("t1", "cpus(allocated: web):1; mem(allocated: web):128")}},
			Launch{Tasks: []Task{task("t2", "cpus(allocated: web):3")}, Executor: rs("mem(allocated: web):32")},
		)
		require.NoError(t, err)
		sameRes(t, a.Resources, offered)
		sameRes(t, a.Launched, rs("cpus(allocated: web):4; mem(allocated: web):160"))
		sameRes(t, a.Unused, rs("mem(allocated: web):3936;"+webDisk+";"+webPorts))
	})
	t.Run("launches overcommit", func(t *testing.T) {
		_, err := ApplyAll(offered,
			Launch{Tasks: []Task{task("t1", "cpus(allocated: web):3")}},
			Launch{Tasks: []Task{task("t2", "cpus(allocated: web):2")}},
		)
		wantErr(t, err, ErrDoesNotContain)
		var opErr *OpError
		if !errors.As(err, &opErr) {
			t.Fatalf("%v is no OpError", err)
		}
		eq(t, opErr.Index, 1)
	})
	t.Run("tasks of one launch overcommit", func(t *testing.T) {
		_, err := ApplyAll(offered, Launch{Tasks: []Task{task("t1", "cpus(allocated: web):3"), task("t2", "cpus(allocated: web):2")}})
		wantErr(t, err, ErrDoesNotContain)
	})
	t.Run("reserve what was launched", func(t *testing.T) {
		_, err := ApplyAll(offered,
			Launch{Tasks: []Task{task("t1", "cpus(allocated: web):3")}},
			Reserve{Resources: rs(resCPUs)},
		)
		wantErr(t, err, ErrDoesNotContain)
	})
	t.Run("launch on what was reserved", func(t *testing.T) {
		a, err := ApplyAll(offered,
			Reserve{Resources: rs(resCPUs)},
			Launch{Tasks: []Task{task("t1", resCPUs)}},
		)
		require.NoError(t, err)
		sameRes(t, a.Launched, rs(resCPUs))
		sameRes(t, a.Unused, rs("cpus(allocated: web):2;"+webMem+";"+webDisk+";"+webPorts))
	})
	t.Run("shared volume used by two tasks", func(t *testing.T) {
		withVol := offered.Plus(rs(sharedVol))
		a, err := ApplyAll(withVol,
			Launch{Tasks: []Task{task("t1", sharedVol), task("t2", sharedVol)}},
			Launch{Tasks: []Task{task("t3", sharedVol)}},
		)
		require.NoError(t, err)
		eq(t, a.Launched.Copies(one(t, sharedVol)), 1)
		expect(t, a.Resources.Contains(a.Launched), "want %s", `a.Resources.Contains(a.Launched)`)
		sameRes(t, a.Unused, offered)
		_, err = ApplyAll(withVol, Launch{Tasks: []Task{task("t1", sharedVol)}}, Destroy{Volumes: rs(sharedVol)})
		wantErr(t, err, ErrDoesNotContain)
	})
	t.Run("shared volume not offered", func(t *testing.T) {
		_, err := ApplyAll(offered, Launch{Tasks: []Task{task("t1", sharedVol)}})
		wantErr(t, err, ErrDoesNotContain)
	})
}

func TestAcceptError(t *testing.T) {
	offered := agent()
	a, err := ApplyAll(offered, nil)
	wantErr(t, err, ErrUnsupported)
	sameRes(t, a.Resources, offered)
	sameRes(t, a.Unused, offered)
	expect(t, a.Launched.IsEmpty(), "want %s", `a.Launched.IsEmpty()`)
	expect(t, strings.Contains(err.Error(), "operation 0 (Kind(0))"), "%q lacks %q", err.Error(), "operation 0 (Kind(0))")
	var nilReserve *Reserve
	_, err = ApplyAll(offered, nilReserve)
	wantErr(t, err, ErrUnsupported)
	expect(t, strings.Contains(err.Error(), "operation 0 (RESERVE)"), "%q lacks %q", err.Error(), "operation 0 (RESERVE)")
}

func TestKindOf(t *testing.T) {
	eq(t, KindOf(nil), Kind(0))
	eq(t, KindOf((*Create)(nil)), KindCreate)
	eq(t, KindOf(&GrowVolume{}), KindGrowVolume)
	eq(t, KindOf(ShrinkVolume{}), KindShrinkVolume)
	eq(t, (&OpError{Index: 1, Kind: KindLaunch}).Error(), "offer: operation 1 (LAUNCH): failed")
}

func TestApplyPointerOperations(t *testing.T) {
	got, err := Apply(agent(), &Reserve{Resources: rs(resCPUs)})
	require.NoError(t, err)
	expect(t, got.Contains(rs(resCPUs)), "want %s", `got.Contains(rs(resCPUs))`)
}

func TestApplySharedCopiesRemain(t *testing.T) {
	twoCopies := agent().Plus(rs(sharedVol)).Plus(rs(sharedVol))
	_, err := Apply(twoCopies, Destroy{Volumes: rs(sharedVol)})
	wantErr(t, err, ErrSharedCopiesRemain)

	oneCopy := agent().Plus(rs(sharedVol))
	got, err := Apply(oneCopy, Destroy{Volumes: rs(sharedVol)})
	require.NoError(t, err)
	sameRes(t, got, agent().Plus(rs(resDisk)))
}

func TestApplyPersistenceIDNotUnique(t *testing.T) {
	offered := agent().Plus(rs(vol)).Plus(rs(resDisk))
	_, err := Apply(offered, Create{Volumes: rs(vol)})
	wantErr(t, err, ErrPersistenceIDNotUnique)
	_, err = Apply(offered, Create{Volumes: rs(sharedVol)})
	wantErr(t, err, ErrPersistenceIDNotUnique)
	_, err = Apply(offered, Create{Volumes: rs(strings.Replace(vol, "id:data", "id:logs", 1))})
	require.NoError(t, err)
}

func TestConserved(t *testing.T) {
	cases := []struct {
		before, after string
		ok            bool
	}{
		{"cpus:1", "cpus(reservations: [(DYNAMIC,web,ops)]):1", true},
		{"cpus:1", "cpus:2", false},
		{"cpus:1", "mem:1", false},
		{"ports:[1-10]", "ports(reservations: [(DYNAMIC,web,ops)]):[1-5]; ports:[6-10]", true},
		{"ports:[1-10]", "ports:[1-9]", false},
		{"ports:[1-10]", "cpus:1; ports:[1-10]", false},
		{"ports:[1-10]", "ports:[1-10]; devs:{a}", false},
		{"devs:{a,b}", "devs(reservations: [(DYNAMIC,web,ops)]):{a}; devs:{b}", true},
		{"devs:{a,b}", "devs:{a,c}", false},
		{"disk(reservations: [(DYNAMIC,web,ops)]):10", "disk(reservations: [(DYNAMIC,web,ops)])[id:x,path:x]<SHARED>:10", true},
	}
	for _, c := range cases {
		err := conserved(amountsOf(rs(c.before)), amountsOf(rs(c.after)))
		if c.ok {
			expect(t, err == nil, "unexpected error %v: %s -> %s", err, c.before, c.after)
		} else {
			expect(t, errors.Is(err, ErrConservation), "error %v: %s -> %s", err, c.before, c.after)
		}
	}
}

func ExampleOpError() {
	offered := resources.MustParse("cpus(allocated: web):4", "")
	_, err := Apply(offered, Unreserve{Resources: resources.MustParse("cpus(allocated: web):1", "")})
	fmt.Println(err)
	fmt.Println(errors.Is(err, ErrNotDynamicallyReserved))
	// Output:
	// offer: operation 0 (UNRESERVE): resource is not dynamically reserved: cpus(allocated: web):1
	// true
}
