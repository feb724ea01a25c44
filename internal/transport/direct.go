package transport

import (
	"encoding/binary"
	"sync/atomic"
	"unsafe"
)

// The load/store shortcut. When the backend maps a peer's segment into this
// process (conduit.Caps.DirectAccess) and Settings.Direct allows it, an
// access to that peer is a plain copy into or out of the mapped segment
// rather than a posted descriptor, as GASNet uses process-shared memory
// between the PEs of one node.
//
// Direct is the one test of the target that decides the shortcut: an
// entry of the engine's table of mapped segments. The engine's Put, Get
// and AMO ask it before posting anything; the runtime (package pgas) asks
// it too, after checking the access itself (range, allocation, access
// mode) with no descriptor in sight, and its cheapest fast path reads the
// same table (DirectSegments) in place. Whoever stores into a mapped
// segment then calls Wake.

// Direct returns rank's segment when this engine may reach it by load and
// store instead of posting a descriptor, and nil when it must post: the
// backend maps no segment, direct access is off (Settings.Direct), or rank
// is outside the job.
func (e *Engine) Direct(rank int) []byte {
	if uint(rank) >= uint(len(e.direct)) {
		return nil
	}
	return e.direct[rank]
}

// DirectSegments is the table Direct reads, by rank: nil when no segment
// may be reached by load and store, else an entry per rank of the job, nil
// for a rank whose segment the backend does not map.
func (e *Engine) DirectSegments() [][]byte { return e.direct }

// Wake tells rank that this PE changed its segment by load/store (Direct),
// so that it wakes if it sleeps waiting for the change
// (conduit.Waker). Call it after the stores.
func (e *Engine) Wake(rank int) {
	if e.sleeping != nil && e.sleeping[rank].Load() {
		e.waker.Wake(rank)
	}
}

// LoadWord and StoreWord access an aligned 4- or 8-byte word of a mapped
// segment atomically, for strict single-word accesses.
func LoadWord(seg []byte, off int64, width int) uint64 {
	if width == 8 {
		return atomic.LoadUint64((*uint64)(unsafe.Pointer(&seg[off])))
	}
	return uint64(atomic.LoadUint32((*uint32)(unsafe.Pointer(&seg[off]))))
}

// StoreWord stores v atomically; see LoadWord.
func StoreWord(seg []byte, off int64, width int, v uint64) {
	if width == 8 {
		atomic.StoreUint64((*uint64)(unsafe.Pointer(&seg[off])), v)
		return
	}
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&seg[off])), uint32(v))
}

// CopyStrict moves data between local and the mapped segment seg at off
// for a strict access (into seg when put is set): whole aligned words
// atomically, 8 bytes at a time when off and the length allow it, else 4,
// so that a strict access is never torn and is sequentially consistent with
// other PEs' strict accesses to the same words. A range aligned to neither
// is copied plainly.
func CopyStrict(seg []byte, off int64, local []byte, put bool) {
	n := int64(len(local))
	width := int64(8)
	if off%8 != 0 || n%8 != 0 {
		width = 4
	}
	if off%width != 0 || n%width != 0 {
		if put {
			copy(seg[off:], local)
		} else {
			copy(local, seg[off:off+n])
		}
		return
	}
	for i := int64(0); i < n; i += width {
		if put {
			var v uint64
			if width == 8 {
				v = binary.NativeEndian.Uint64(local[i:])
			} else {
				v = uint64(binary.NativeEndian.Uint32(local[i:]))
			}
			StoreWord(seg, off+i, int(width), v)
			continue
		}
		v := LoadWord(seg, off+i, int(width))
		if width == 8 {
			binary.NativeEndian.PutUint64(local[i:], v)
		} else {
			binary.NativeEndian.PutUint32(local[i:], uint32(v))
		}
	}
}
