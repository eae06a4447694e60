//go:build go1.26

package resources

import "testing"

// Looking up a resource of a kind that is not plain (a volume, a
// reservation) describes its kind on the stack. (Go 1.26's escape analysis
// keeps it there; older compilers move the resource to the heap.)
func TestLookupsDoNotAllocate(t *testing.T) {
	volumes := MustParse("cpus:4;disk(reservations: [(DYNAMIC,db,ops)])[id:v1,principal:ops,path:data]<SHARED>:300;mem(db):1024", "*")
	volume := volumes.PersistentVolumes().Slice()[0]
	for name, f := range map[string]func(){
		"Resources.Copies":           func() { _ = volumes.Copies(volume) },
		"Resources.ContainsResource": func() { _ = volumes.ContainsResource(volume) },
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s allocates %v times per run", name, n)
		}
	}
}
