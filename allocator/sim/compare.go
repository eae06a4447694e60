package sim

import (
	"fmt"
	"strings"
)

// Comparison is one workload run with several configurations, on the same
// tasks and seed.
type Comparison struct {
	// Workload describes the workload in one line.
	Workload string
	Seed     uint64
	Results  []*Result
	// timed says whether run times were measured.
	timed bool
}

// Compare runs workload w with every configuration, one after the other,
// on the same tasks (drawn once from opts.Seed) and with the same seed.
func Compare(w Workload, configs []Config, opts RunOptions) (*Comparison, error) {
	opts, err := opts.resolved()
	if err != nil {
		return nil, err
	}
	if err := checkConfigs(configs); err != nil {
		return nil, err
	}
	m, err := compile(w, opts.Seed)
	if err != nil {
		return nil, err
	}
	c := &Comparison{Workload: describe(m, opts), Seed: opts.Seed, timed: opts.Stopwatch != nil}
	for _, cfg := range configs {
		res, err := runModel(m, cfg, opts)
		if err != nil {
			return nil, err
		}
		c.Results = append(c.Results, res)
		if _, done := opts.SamplesCSV.(continuedCSV); opts.SamplesCSV != nil && !done {
			// One header for the whole file: the next runs' lines follow.
			opts.SamplesCSV = continuedCSV{opts.SamplesCSV}
		}
	}
	return c, nil
}

func checkConfigs(configs []Config) error {
	if len(configs) == 0 {
		return fmt.Errorf("%w: no configuration", ErrInvalidConfig)
	}
	seen := map[string]bool{}
	for i, cfg := range configs {
		switch {
		case cfg.Name == "" || strings.ContainsAny(cfg.Name, ",\"\n\r"):
			return fmt.Errorf("%w: configuration %d: name %q: want a name without commas, quotes or newlines", ErrInvalidConfig, i, cfg.Name)
		case seen[cfg.Name]:
			return fmt.Errorf("%w: two configurations named %q", ErrInvalidConfig, cfg.Name)
		case cfg.PreemptDelay < 0:
			return fmt.Errorf("%w: %q: preempt delay %d: want zero or more intervals", ErrInvalidConfig, cfg.Name, cfg.PreemptDelay)
		}
		seen[cfg.Name] = true
	}
	return nil
}

// describe sums a workload up in one line.
func describe(m *model, opts RunOptions) string {
	roles := make([]string, len(m.roles))
	for i, r := range m.roles {
		roles[i] = r.Name
		if r.Weight != 1 {
			roles[i] += fmt.Sprintf(" (weight %g)", r.Weight)
		}
	}
	length := "until done"
	if opts.Intervals > 0 {
		length = fmt.Sprintf("%d intervals", opts.Intervals)
	}
	return fmt.Sprintf("%d agents (%s); roles %s; %d frameworks; %d tasks; %d events; %s of %s; seed %d",
		len(m.agents), m.total, strings.Join(roles, ", "), len(m.frameworks), len(m.tasks)+m.streamed, len(m.events),
		length, opts.Interval, opts.Seed)
}
