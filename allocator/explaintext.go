package allocator

import (
	"fmt"
	"strings"
	"time"
)

// String renders the explanation as sentences, one per role.
func (x Explanation) String() string {
	lines := make([]string, 0, len(x.Roles)+len(x.Preemptions))
	for _, r := range x.Roles {
		lines = append(lines, r.String())
	}
	for _, p := range x.Preemptions {
		lines = append(lines, p.String())
	}
	return strings.Join(lines, "\n")
}

// Describe renders the explanation with the agents behind each reason: a
// line per role (its sentence), then per reason the agents listed and
// what was found on each.
func (x Explanation) Describe() string {
	var b strings.Builder
	for _, r := range x.Roles {
		b.WriteString(r.String())
		b.WriteByte('\n')
		for _, g := range r.Reasons {
			fmt.Fprintf(&b, "  %s on %d:", g.Reason, g.Count)
			for _, ar := range g.Agents {
				b.WriteString(" " + ar.Agent)
				var details []string
				if x.Framework == "" && ar.Framework != "" {
					details = append(details, ar.Framework)
				}
				switch g.Reason {
				case ReasonFiltered:
					details = append(details, "until "+clockText(ar.Until, r.at))
				case ReasonIncapable:
					details = append(details, "lacks "+ar.Missing.String())
				case ReasonQuotaLimit, ReasonHeadroom:
					if !ar.Offer.IsEmpty() {
						details = append(details, "would add "+ar.Offer.String())
					}
				case ReasonMinAllocatable, ReasonNoFit:
					details = append(details, "left "+ar.Offer.String())
				case ReasonFairness:
					details = append(details, "to "+ar.Winner+" in "+ar.WinnerRole)
				}
				if len(details) > 0 {
					b.WriteString(" (" + strings.Join(details, ", ") + ")")
				}
			}
			if g.Count > len(g.Agents) {
				fmt.Fprintf(&b, " and %d more", g.Count-len(g.Agents))
			}
			b.WriteByte('\n')
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// String renders the role's explanation as a sentence: "web got nothing
// on 37 agents: 30 held back as headroom for analytics's unmet guarantee
// (cpus:12), 7 refused until 12:00:05".
func (r RoleExplanation) String() string {
	subject := r.subject
	if subject == "" {
		subject = r.Role
	}
	missed := r.Agents - r.Offered
	switch {
	case r.Agents == 0:
		return subject + " had no agent in the run"
	case missed == 0 && r.Agents == 1:
		return subject + " got an offer on the one agent"
	case missed == 0:
		return fmt.Sprintf("%s got offers on all %d agents", subject, r.Agents)
	}
	head := fmt.Sprintf("%s got nothing on %s", subject, agentsText(missed))
	if r.Offered > 0 {
		head = fmt.Sprintf("%s got offers on %s and nothing on %d", subject, agentsText(r.Offered), missed)
	}
	parts := make([]string, 0, len(r.Reasons))
	for _, g := range r.Reasons {
		parts = append(parts, g.phrase(r.Role, r.at))
	}
	return head + ": " + strings.Join(parts, ", ")
}

func agentsText(n int) string {
	if n == 1 {
		return "1 agent"
	}
	return fmt.Sprintf("%d agents", n)
}

// phrase renders one reason with its count and figures.
func (g ReasonGroup) phrase(role string, at time.Time) string {
	n := g.Count
	switch g.Reason {
	case ReasonInactive:
		switch g.State {
		case "removed":
			return fmt.Sprintf("%d as the framework was removed", n)
		case "not yet in a run":
			return fmt.Sprintf("%d as the framework joined after the run", n)
		case "no framework":
			return fmt.Sprintf("%d with no framework in the role", n)
		}
		return fmt.Sprintf("%d as the framework is inactive", n)
	case ReasonSuppressed:
		return fmt.Sprintf("%d suppressed in role %s", n, role)
	case ReasonIncapable:
		return fmt.Sprintf("%d lacking %s", n, g.Missing)
	case ReasonConstraints:
		return fmt.Sprintf("%d excluded by its offer constraints", n)
	case ReasonFiltered:
		if g.Until.IsZero() {
			return fmt.Sprintf("%d refused (the filters were lifted since)", n)
		}
		if !g.Earliest.Equal(g.Until) {
			return fmt.Sprintf("%d refused until between %s and %s", n, clockText(g.Earliest, at), clockText(g.Until, at))
		}
		return fmt.Sprintf("%d refused until %s", n, clockText(g.Until, at))
	case ReasonQuotaLimit:
		if g.QuotaRole == "" {
			return fmt.Sprintf("%d at the quota limit", n)
		}
		return fmt.Sprintf("%d at %s's quota limit (limit %s, consumed %s)", n, g.QuotaRole, g.Limit, g.Consumed)
	case ReasonHeadroom:
		switch len(g.Unmet) {
		case 0:
			return fmt.Sprintf("%d held back as headroom", n)
		case 1:
			return fmt.Sprintf("%d held back as headroom for %s's unmet guarantee (%s)", n, g.Unmet[0].Role, g.Unmet[0].Quantities)
		}
		roles := make([]string, len(g.Unmet))
		for i, u := range g.Unmet {
			roles[i] = fmt.Sprintf("%s (%s)", u.Role, u.Quantities)
		}
		return fmt.Sprintf("%d held back as headroom for the unmet guarantees of %s and %s", n, strings.Join(roles[:len(roles)-1], ", "), roles[len(roles)-1])
	case ReasonMinAllocatable:
		return fmt.Sprintf("%d below the minimum allocatable (%s left)", n, g.Left)
	case ReasonNoFit:
		switch {
		case len(g.Unfit) == 1:
			return fmt.Sprintf("%d where no pending task fits (%s fits on none)", n, g.Unfit[0].Resources)
		case len(g.Unfit) > 1:
			return fmt.Sprintf("%d where no pending task fits (%d shapes fit on none)", n, len(g.Unfit))
		}
		return fmt.Sprintf("%d where no pending task fits (%s left)", n, g.Left)
	case ReasonDeclined:
		return fmt.Sprintf("%d declined, offered to the others first", n)
	case ReasonFairness:
		to := "role " + g.WinnerRole
		if g.WinnerRole == role {
			to = g.Winner
		}
		text := fmt.Sprintf("%d lost to fairness: offered to %s", n, to)
		switch g.Winners {
		case 1:
		case 2:
			text += " and 1 other"
		default:
			text += fmt.Sprintf(" and %d others", g.Winners-1)
		}
		if g.Share >= 0 {
			mine, theirs := role, g.WinnerRole
			if g.WinnerRole == role {
				mine, theirs = g.Agents[0].Framework, g.Winner
			}
			text += fmt.Sprintf(" (shares now: %s %s, %s %s)", theirs, shareText(g.WinnerShare), mine, shareText(g.Share))
		}
		return text
	case ReasonNothingLeft:
		return fmt.Sprintf("%d with nothing left for the role", n)
	case ReasonAgentInactive:
		return fmt.Sprintf("%d with the agent inactive", n)
	}
	return fmt.Sprintf("%d %s", n, g.Reason)
}

func shareText(s float64) string { return fmt.Sprintf("%.4g", s) }

// clockText renders a time as a time of day (UTC, to the millisecond),
// with the date when it is not the day of the run.
func clockText(t, run time.Time) string {
	t, run = t.UTC(), run.UTC()
	if t.IsZero() {
		return "(lifted)"
	}
	if y, m, d := t.Date(); y == run.Year() && m == run.Month() && d == run.Day() {
		return t.Format("15:04:05.999")
	}
	return t.Format("2006-01-02 15:04:05.999")
}
