package conduit

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// FlagBytes is the size of a flagged get's flag word (FlagWord.Word).
const FlagBytes = 8

// checkFlag validates a descriptor's flag word: only an FMA get carries
// one, and it is one aligned word of its own, so that StoreFlag can write
// it atomically and never over the get's data.
func checkFlag(d *PostDesc) error {
	if d.Type != Get {
		return fmt.Errorf("post %v to PE %d: a flag word, but flags are for FMA gets only", d.Type, d.Target)
	}
	if d.Mech != FMA {
		return fmt.Errorf("post get to PE %d: a flag word, but flags are for FMA gets only, not %v", d.Target, d.Mech)
	}
	if len(d.Flag.Word) != FlagBytes {
		return fmt.Errorf("post get to PE %d: flag word of %d bytes (want %d)", d.Target, len(d.Flag.Word), FlagBytes)
	}
	flag := uintptr(unsafe.Pointer(unsafe.SliceData(d.Flag.Word)))
	if flag%FlagBytes != 0 {
		return fmt.Errorf("post get to PE %d: flag word at %#x is not aligned to %d bytes", d.Target, flag, FlagBytes)
	}
	local := uintptr(unsafe.Pointer(unsafe.SliceData(d.Local)))
	if flag < local+uintptr(len(d.Local)) && local < flag+FlagBytes {
		return fmt.Errorf("post get to PE %d: flag word at %#x overlaps the %d-byte local buffer at %#x", d.Target, flag, len(d.Local), local)
	}
	return nil
}

// StoreFlag writes v into a flag word (FlagWord.Word) as one atomic,
// native-endian 8-byte store. CheckPost has verified the word's size and
// alignment, so a violation here is a programming error in a backend and
// panics.
func StoreFlag(flag []byte, v uint64) {
	atomic.StoreUint64(flagWord(flag), v)
}

// LoadFlag reads a flag word (FlagWord.Word) atomically: what a PE polls to
// learn that a flagged get's data has arrived. It panics if flag is not an
// aligned 8-byte word.
func LoadFlag(flag []byte) uint64 {
	return atomic.LoadUint64(flagWord(flag))
}

func flagWord(flag []byte) *uint64 {
	p := (*uint64)(unsafe.Pointer(unsafe.SliceData(flag[:FlagBytes])))
	if uintptr(unsafe.Pointer(p))%FlagBytes != 0 {
		panic("conduit: misaligned flag word")
	}
	return p
}
