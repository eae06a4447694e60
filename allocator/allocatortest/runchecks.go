package allocatortest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

func isNamed(err error) bool {
	for _, e := range named {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// diff shows the lines of two texts that differ.
func diff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out strings.Builder
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			fmt.Fprintf(&out, "- %s\n+ %s\n", x, y)
		}
	}
	return out.String()
}

func hasVolumes(rs resources.Resources) bool {
	for r := range rs.All() {
		if r.IsPersistentVolume() {
			return true
		}
	}
	return false
}

// volumes returns an agent's persistent volumes by role and id.
func volumes(v allocator.AgentView) map[volumeKey]string {
	out := map[volumeKey]string{}
	for r := range v.Total.PersistentVolumes().All() {
		out[volumeKey{r.Role(), r.Disk.Persistence.ID}] = r.String()
	}
	return out
}

func checkVolumes(before, after Views, eff *effects) []error {
	var errs []error
	for _, v := range before.Agents {
		if eff.volumesFree[v.ID] {
			continue
		}
		w, ok := after.Agent(v.ID)
		if !ok {
			errs = append(errs, fmt.Errorf("agent %s disappeared", v.ID))
			continue
		}
		errs = append(errs, agentVolumes(v, w, eff.volumeOps[v.ID])...)
	}
	return errs
}

// agentVolumes compares the volumes of an agent before (v) and after (w) a
// step whose operations named ops.
func agentVolumes(v, w allocator.AgentView, ops map[volumeKey]bool) []error {
	if !hasVolumes(v.Total) && !hasVolumes(w.Total) || v.Total.PersistentVolumes().Equal(w.Total.PersistentVolumes()) {
		return nil
	}
	var errs []error
	was, now := volumes(v), volumes(w)
	for k, r := range was {
		if ops[k] {
			continue
		}
		if s, ok := now[k]; !ok {
			errs = append(errs, fmt.Errorf("agent %s: volume %s lost without an operation naming it", v.ID, r))
		} else if s != r {
			errs = append(errs, fmt.Errorf("agent %s: volume %s became %s without an operation naming it", v.ID, r, s))
		}
	}
	for k, r := range now {
		if _, ok := was[k]; !ok && !ops[k] {
			errs = append(errs, fmt.Errorf("agent %s: volume %s appeared without an operation naming it", v.ID, r))
		}
	}
	return errs
}

// checkShares compares the role sorter's shares with the holdings (beyond
// the roles' allowances, with Options.ChargeBeyondAllowance).
func (h *Harness) checkShares(s Views) []error {
	var errs []error
	var totals resources.Quantities
	held := map[string]resources.Quantities{}
	for _, v := range s.Agents {
		totals.Add(v.Total.Quantities())
		byRole := map[string]resources.Resources{}
		for _, m := range []map[string]resources.Resources{v.Offered, v.Allocated, v.Held} {
			for _, fw := range slices.Sorted(maps.Keys(m)) {
				for _, role := range m[fw].AllocationRoles() {
					cur := byRole[role]
					cur.Add(m[fw].AllocatedTo(role))
					byRole[role] = cur
				}
			}
		}
		for role, r := range byRole {
			q := held[role]
			q.Add(r.Quantities())
			held[role] = q
		}
	}
	for _, r := range s.Roles {
		if r.Share < 0 {
			continue
		}
		var sub resources.Quantities
		for _, role := range slices.Sorted(maps.Keys(held)) {
			if reservation.IsSubroleOrSelf(role, r.Role) {
				sub.Add(held[role])
			}
		}
		if h.opts.Allocator.ChargeBeyondAllowance {
			// Charged beyond the allowance: the larger of the guarantee
			// and the subtree's reservations.
			allowance := r.Quota.Guarantees.Clone()
			allowance.Max(r.Reserved)
			sub.Subtract(allowance)
		}
		share, _ := sub.DominantShare(totals, h.excluded)
		want := share / r.Weight
		if d := want - r.Share; d > 1e-9 || d < -1e-9 {
			errs = append(errs, fmt.Errorf("role %s: share %v, holdings %s of %s at weight %v give %v", r.Role, r.Share, sub, totals, r.Weight, want))
		}
	}
	return errs
}

// checkTasks checks the ledger of launched tasks against the snapshot:
// every task runs on a known agent, with resources allocated to its role,
// and no task that ended is listed again.
func (h *Harness) checkTasks(s Views) []error {
	var errs []error
	for _, f := range s.Frameworks {
		ended := h.ended[f.ID]
		for _, t := range h.a.Tasks(f.ID) {
			if _, ok := s.Agent(t.Agent); !ok {
				errs = append(errs, fmt.Errorf("framework %s: task %s on unknown agent %s", f.ID, t.ID, t.Agent))
			}
			if roles := t.Resources.AllocationRoles(); len(roles) > 1 || (len(roles) == 1 && roles[0] != t.Role) {
				errs = append(errs, fmt.Errorf("framework %s: task %s in role %s holds %s", f.ID, t.ID, t.Role, t.Resources))
			}
			if slices.Contains(ended, t.ID) {
				errs = append(errs, fmt.Errorf("framework %s: task %s ended, and is listed still", f.ID, t.ID))
			}
		}
	}
	return errs
}

// checkRunRules checks the offers of a run against what the harness told
// the allocator.
func (h *Harness) checkRunRules(before Views, res allocator.Result) []error {
	var errs errorList
	if h.paused && (len(res.Offers) > 0 || len(res.InverseOffers) > 0) {
		errs.fail("a paused allocator made %d offers and %d inverse offers", len(res.Offers), len(res.InverseOffers))
	}
	opts := h.opts.Allocator
	for _, o := range res.Offers {
		where := fmt.Sprintf("offer %s to %s in role %s on %s", o.ID, o.FrameworkID, o.Role, o.AgentID)
		info, fok := h.fwInfo[o.FrameworkID]
		v, _ := before.Agent(o.AgentID)
		ainfo := h.agentInfo[o.AgentID]
		if !fok {
			continue
		}
		if !opts.AllowGPUsToAll && v.Total.Quantities().Scalar("gpus") > 0 && !info.Capabilities.Has(offer.GPUResources) {
			errs.fail("%s: an agent with GPUs to a framework without GPU_RESOURCES", where)
		}
		if opts.Region != "" && ainfo.Region != "" && ainfo.Region != opts.Region && !info.Capabilities.Has(offer.RegionAware) {
			errs.fail("%s: an agent in region %q to a framework that is not region aware", where, ainfo.Region)
		}
		mins, ok := info.MinAllocatable[o.Role]
		if !ok {
			mins = opts.MinAllocatable
			if mins == nil {
				mins = allocator.DefaultMinAllocatable()
			}
		}
		if len(mins) > 0 && !slices.ContainsFunc(mins, o.Resources.ContainsQuantities) {
			errs.fail("%s: %s is below the minimum allocatable %v", where, o.Resources, mins)
		}
		if cs, ok := info.Constraints[o.Role]; ok && !admits(cs, ainfo.Attributes) {
			errs.fail("%s: the framework's constraints %v exclude the agent's attributes %v", where, cs, ainfo.Attributes)
		}
		if h.whitelist != nil && !h.whitelist[ainfo.Hostname] {
			errs.fail("%s: host %q is not on the whitelist", where, ainfo.Hostname)
		}
	}
	// The quota referee (referee.go), with what the harness told the
	// allocator.
	errs = append(errs, h.refereeRun(before, res)...)
	return errs
}

func admits(cs allocator.Constraints, attrs map[string]string) bool {
	if len(cs) == 0 {
		return true
	}
	for _, g := range cs {
		all := true
		for _, c := range g {
			v, ok := attrs[c.Attribute]
			var holds bool
			switch c.Op {
			case allocator.OpExists:
				holds = ok
			case allocator.OpNotExists:
				holds = !ok
			case allocator.OpEquals:
				holds = ok && v == c.Value
			case allocator.OpNotEquals:
				holds = !ok || v != c.Value
			}
			if !holds {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}
