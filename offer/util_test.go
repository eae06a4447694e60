package offer

import (
	"errors"
	"testing"

	"github.com/allot-go/allot/resources"
)

// rs parses resources in the text format; tests use literal, valid text.
func rs(text string) resources.Resources { return resources.MustParse(text, "") }

// one parses text holding exactly one resource and returns it.
func one(t testing.TB, text string) resources.Resource {
	t.Helper()
	list := rs(text).Slice()
	if len(list) != 1 {
		t.Fatalf("%q holds %d resources, want 1", text, len(list))
	}
	return list[0]
}

// Resources of a framework in role "web" whose principal is "ops", as they
// appear in an offer (allocated to "web").
const (
	webCPUs     = "cpus(allocated: web):4"
	webMem      = "mem(allocated: web):4096"
	webDisk     = "disk(allocated: web):8192"
	webPorts    = "ports(allocated: web):[31000-31999]"
	resCPUs     = "cpus(allocated: web)(reservations: [(DYNAMIC,web,ops)]):2"
	resDisk     = "disk(allocated: web)(reservations: [(DYNAMIC,web,ops)]):1024"
	resPorts    = "ports(allocated: web)(reservations: [(DYNAMIC,web,ops)]):[31000-31009]"
	vol         = "disk(allocated: web)(reservations: [(DYNAMIC,web,ops)])[id:data,principal:ops,path:data]:1024"
	sharedVol   = "disk(allocated: web)(reservations: [(DYNAMIC,web,ops)])[id:data,principal:ops,path:data]<SHARED>:1024"
	staticCPUs  = "cpus(allocated: web)(web):2"
	mountDisk   = "disk(allocated: web)(reservations: [(DYNAMIC,web,ops)])[MOUNT:/mnt/ssd]:2048"
	mountVol    = "disk(allocated: web)(reservations: [(DYNAMIC,web,ops)])[MOUNT:/mnt/ssd,id:ssd,principal:ops,path:ssd]:2048"
	refinedCPUs = "cpus(allocated: web/api)(reservations: [(DYNAMIC,web,ops),(DYNAMIC,web/api,ops)]):2"
	parentCPUs  = "cpus(allocated: web/api)(reservations: [(DYNAMIC,web,ops)]):2"
)

// agent is an offer to "web": unreserved resources plus the reservations
// and volumes the tests act on.
func agent() resources.Resources {
	return rs(webCPUs + ";" + webMem + ";" + webDisk + ";" + webPorts)
}

// ctxWeb is the Context of the framework in "web" with principal "ops",
// every capability, on an agent with every capability.
func ctxWeb() Context {
	return Context{
		Principal:             "ops",
		Roles:                 []string{"web", "web/api"},
		FrameworkCapabilities: ReservationRefinement | SharedResources | MultiRole,
		AgentCapabilities:     HierarchicalRole | ReservationRefinement | ResizeVolume,
	}
}

// expect reports a failure unless cond holds.
func expect(t testing.TB, cond bool, format string, args ...any) {
	t.Helper()
	if !cond {
		t.Errorf(format, args...)
	}
}

// wantErr reports a failure unless errors.Is(err, target).
func wantErr(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("got error %v, want %v", err, target)
	}
}

// sameRes reports a failure unless got and want hold the same resources.
func sameRes(t testing.TB, got, want resources.Resources) {
	t.Helper()
	if !got.Equal(want) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// eq reports a failure unless got == want.
func eq[T comparable](t testing.TB, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("got %v, want %v", got, want)
	}
}
