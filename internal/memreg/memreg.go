package memreg

import (
	"errors"
	"unsafe"

	"github.com/gopgas/gopgas/conduit"
)

// ErrTableFull is wrapped by the error of a registration the network
// cannot hold: the NIC's table of registered pages is full. A runtime
// moves a transfer whose buffer it cannot register through bounce
// buffers instead.
var ErrTableFull = errors.New("registration table full")

// Region is one registration: Buf, registered under ID.
type Region struct {
	ID  uint32
	Buf []byte
}

// Contains reports whether b lies inside the region's memory. An empty b
// lies inside nothing: it names no memory a descriptor could use.
func (r *Region) Contains(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(r.Buf)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return p >= base && p+uintptr(len(b)) <= base+uintptr(len(r.Buf))
}

// Handle is the region's handle on the PE of rank owner.
func (r *Region) Handle(owner int) conduit.MemHandle {
	return conduit.MemHandle{Owner: int32(owner), ID: r.ID, Bytes: int64(len(r.Buf))}
}

// Table is an endpoint's registrations, in the order they were made.
type Table []Region

// Lookup returns the region registered under id, or nil.
func (t Table) Lookup(id uint32) *Region {
	for i := range t {
		if t[i].ID == id {
			return &t[i]
		}
	}
	return nil
}

// Registered returns the handle, on the PE of rank owner, of the first
// region that contains buf (conduit.Endpoint.Registered).
func (t Table) Registered(owner int, buf []byte) (conduit.MemHandle, bool) {
	for i := range t {
		if t[i].Contains(buf) {
			return t[i].Handle(owner), true
		}
	}
	return conduit.MemHandle{}, false
}
