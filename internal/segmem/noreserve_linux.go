//go:build linux && !race

package segmem

import "syscall"

const mapNoReserve = syscall.MAP_NORESERVE
