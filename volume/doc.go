// Package volume models the disk-specific metadata of disk resources: where
// the storage comes from (PATH, MOUNT, BLOCK or RAW sources), whether it is a
// persistent volume (persistence id and principal), and where a volume is
// mounted in a container.
package volume
