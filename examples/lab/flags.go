package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/sim"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// labConfig is a configuration as the command line names it.
type labConfig struct {
	spec         string
	sorter       string
	halfLife     time.Duration
	opts         allocator.Options
	stateDemand  bool
	preemptDelay int
}

// parseConfigs reads a comma-separated list of configurations:
// sorter[:option]..., options halflife=D, offershare=F, charge,
// reservedfirst, demand, reclaim=R and preemptdelay=N. Each starts from
// def: the half-life, demand and preemption delay of the flags.
func parseConfigs(list string, def labConfig) ([]labConfig, error) {
	var out []labConfig
	seen := map[string]bool{}
	for _, spec := range strings.Split(list, ",") {
		c, err := parseConfig(spec, def)
		if err != nil {
			return nil, fmt.Errorf("-configs: %q: %w", spec, err)
		}
		if seen[spec] {
			return nil, fmt.Errorf("-configs: %q twice", spec)
		}
		seen[spec] = true
		out = append(out, c)
	}
	return out, nil
}

func parseConfig(spec string, def labConfig) (labConfig, error) {
	parts := strings.Split(spec, ":")
	c := labConfig{spec: spec, sorter: parts[0], halfLife: def.halfLife, stateDemand: def.stateDemand, preemptDelay: def.preemptDelay}
	switch c.sorter {
	case "drf", "usage", "random":
	default:
		return c, fmt.Errorf("sorter %q: want drf, usage or random", c.sorter)
	}
	for _, opt := range parts[1:] {
		if err := c.option(opt); err != nil {
			return c, err
		}
	}
	return c, nil
}

// reclaims are the values of the reclaim option.
var reclaims = map[string]allocator.Reclaim{
	"off": allocator.ReclaimOff, "guarantees": allocator.ReclaimGuarantees, "fairshare": allocator.ReclaimFairShare,
}

// option applies one option of a configuration.
func (c *labConfig) option(opt string) error {
	name, value, _ := strings.Cut(opt, "=")
	var err error
	switch {
	case name == "halflife" && c.sorter == "usage":
		c.halfLife, err = time.ParseDuration(value)
		if err == nil && c.halfLife < 0 {
			err = fmt.Errorf("negative")
		}
	case name == "offershare":
		c.opts.OfferShare, err = strconv.ParseFloat(value, 64)
		if err == nil && !(c.opts.OfferShare > 0 && c.opts.OfferShare <= 1) {
			err = fmt.Errorf("want a part of an agent above 0 and at most 1")
		}
	case name == "charge" && value == "":
		c.opts.ChargeBeyondAllowance = true
	case name == "reservedfirst" && value == "":
		c.opts.ReservedFirst = true
	case name == "demand" && value == "":
		c.stateDemand = true
	case name == "reclaim":
		var ok bool
		if c.opts.Reclaim, ok = reclaims[value]; !ok {
			err = fmt.Errorf("want off, guarantees or fairshare")
		}
	case name == "preemptdelay":
		c.preemptDelay, err = strconv.Atoi(value)
		if err == nil && c.preemptDelay < 0 {
			err = fmt.Errorf("negative")
		}
	default:
		return fmt.Errorf("option %q: want halflife=D (usage), offershare=F, charge, reservedfirst, demand, reclaim=R or preemptdelay=N", opt)
	}
	if err != nil {
		return fmt.Errorf("option %q: %w", opt, err)
	}
	return nil
}

// simConfig is the configuration for the sim package.
func (c labConfig) simConfig() sim.Config {
	cfg := sim.Config{Name: c.spec, Options: c.opts, StateDemand: c.stateDemand, PreemptDelay: c.preemptDelay}
	switch c.sorter {
	case "usage":
		cfg.RoleSorterWithClock = sim.Usage(c.halfLife)
	case "random":
		cfg.Options.RoleSorter = func(sc sorter.Config) sorter.Sorter { return sorter.NewRandom(sc) }
	}
	return cfg
}

// agentFlags are the -agents flags: groups of agents of one shape.
type agentFlags []sim.AgentGroup

func (a *agentFlags) String() string {
	var parts []string
	for _, g := range *a {
		parts = append(parts, fmt.Sprintf("%dx %s", g.Count, g.Resources))
	}
	return strings.Join(parts, ", ")
}

// Set reads COUNTxRESOURCES: "10x cpus:32;mem:131072".
func (a *agentFlags) Set(text string) error {
	count, res, ok := strings.Cut(text, "x")
	n, err := strconv.Atoi(strings.TrimSpace(count))
	if !ok || err != nil || n < 1 {
		return fmt.Errorf("%q: want COUNTxRESOURCES, such as 10x cpus:32;mem:131072", text)
	}
	res = strings.TrimSpace(res)
	if _, err := resources.Parse(res, "*"); err != nil {
		return fmt.Errorf("%q: %w", text, err)
	}
	*a = append(*a, sim.AgentGroup{Name: fmt.Sprintf("g%d", len(*a)+1), Count: n, Resources: res})
	return nil
}

// googleStart is the -start flag: the instant of a Google trace that is
// the run's time zero.
type googleStart struct {
	fixed bool // else the trace's first event
	at    time.Duration
}

// String writes the flag as Set reads it.
func (s *googleStart) String() string {
	if s == nil || !s.fixed {
		return "first"
	}
	return s.at.String()
}

// Set reads "first" or a duration of zero or more.
func (s *googleStart) Set(text string) error {
	if text == "first" {
		*s = googleStart{}
		return nil
	}
	at, err := time.ParseDuration(text)
	if err != nil || at < 0 {
		return fmt.Errorf("%q: want first, or a time of the trace such as 300h", text)
	}
	*s = googleStart{fixed: true, at: at}
	return nil
}
