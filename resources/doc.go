// Package resources models what a cluster has to give: resources (cpus, mem,
// disk, gpus, ports, ...) with their reservations and disk metadata,
// multisets of them with Mesos's arithmetic, and plain quantities and limits.
package resources
