package cluster

import (
	"slices"
	"time"

	"github.com/allot-go/allot/resources"
)

// Hold is resources held for a framework on an agent.
type Hold struct {
	Framework string
	Res       resources.Resources // tagged with allocation roles; frozen
	Until     time.Time
}

// HoldList is what an agent holds, in the order the holds were made.
type HoldList []Hold

// Add holds res (tagged with allocation roles) for the framework until
// the given time; res is frozen, not copied.
func (hs *HoldList) Add(fwID string, res resources.Resources, until time.Time) {
	*hs = append(*hs, Hold{Framework: fwID, Res: res.Frozen(), Until: until})
}

// Of returns what is held for the framework, all its holds together.
func (hs HoldList) Of(fwID string) resources.Resources {
	var out resources.Resources
	for _, h := range hs {
		if h.Framework == fwID {
			out.Add(h.Res)
		}
	}
	return out
}

// Has reports whether something is held for the framework.
func (hs HoldList) Has(fwID string) bool {
	return slices.ContainsFunc(hs, func(h Hold) bool { return h.Framework == fwID })
}

// Release removes the framework's holds (every framework's when fwID is
// ""), calling gone for each in order.
func (hs *HoldList) Release(fwID string, gone func(Hold)) {
	*hs = slices.DeleteFunc(*hs, func(h Hold) bool {
		if fwID != "" && h.Framework != fwID {
			return false
		}
		gone(h)
		return true
	})
}
