// Package allocator is the hierarchical DRF allocator: events in, offers out.
package allocator
