package conduit_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
)

// TestCheckPostFlag checks that CheckPost accepts a flag word only on an
// FMA get, 8 bytes, aligned and apart from the data, and says what was
// wrong otherwise.
func TestCheckPostFlag(t *testing.T) {
	mem := unsafeBytes(make([]uint64, 8))
	remote := conduit.MemHandle{Owner: 1, ID: conduit.SegmentID, Bytes: 1 << 10}
	get := func(mod func(d *conduit.PostDesc)) *conduit.PostDesc {
		d := &conduit.PostDesc{Type: conduit.Get, Mech: conduit.FMA, Target: 1, Local: mem[:16],
			Remote: remote, Flag: &conduit.FlagWord{Word: mem[16:24], Value: 7}}
		mod(d)
		return d
	}
	cases := []struct {
		name string
		d    *conduit.PostDesc
		want string // "" means accepted
	}{
		{"fma get", get(func(*conduit.PostDesc) {}), ""},
		{"flag before the data", get(func(d *conduit.PostDesc) { d.Local, d.Flag.Word = mem[8:16], mem[:8] }), ""},
		{"no flag", get(func(d *conduit.PostDesc) { d.Flag = nil }), ""},
		{"put", get(func(d *conduit.PostDesc) { d.Type = conduit.Put }), "post put to PE 1: a flag word, but flags are for FMA gets only"},
		{"amo", get(func(d *conduit.PostDesc) { d.Type, d.AMO, d.Width = conduit.AMO, conduit.AMOAdd, 8 }), "post amo to PE 1: a flag word, but flags are for FMA gets only"},
		{"bte get", get(func(d *conduit.PostDesc) { d.Mech = conduit.BTE }), "flags are for FMA gets only, not BTE"},
		{"empty flag", get(func(d *conduit.PostDesc) { d.Flag.Word = mem[16:16] }), "flag word of 0 bytes (want 8)"},
		{"short flag", get(func(d *conduit.PostDesc) { d.Flag.Word = mem[16:20] }), "flag word of 4 bytes (want 8)"},
		{"long flag", get(func(d *conduit.PostDesc) { d.Flag.Word = mem[16:32] }), "flag word of 16 bytes (want 8)"},
		{"misaligned flag", get(func(d *conduit.PostDesc) { d.Flag.Word = mem[20:28] }), "is not aligned to 8 bytes"},
		{"flag inside the data", get(func(d *conduit.PostDesc) { d.Flag.Word = mem[8:16] }), "overlaps the 16-byte local buffer"},
		{"flag over the data's end", get(func(d *conduit.PostDesc) { d.Local = mem[:20]; d.Flag.Word = mem[16:24] }), "overlaps the 20-byte local buffer"},
	}
	for _, c := range cases {
		err := conduit.CheckPost(c.d, 2)
		if c.want == "" {
			assert.NoError(t, err, c.name)
			continue
		}
		if assert.Error(t, err, c.name) {
			assert.Contains(t, err.Error(), c.want, c.name)
		}
	}
	// The misaligned flag's error names its address.
	d := get(func(d *conduit.PostDesc) { d.Flag.Word = mem[20:28] })
	require.ErrorContains(t, conduit.CheckPost(d, 2), fmt.Sprintf("%p", &mem[20]))
}

// TestFlagWord checks that StoreFlag writes the value native-endian, and
// that both ends refuse a misaligned word.
func TestFlagWord(t *testing.T) {
	words := make([]uint64, 2)
	mem := unsafeBytes(words)
	conduit.StoreFlag(mem[8:16], 0x0102030405060708)
	assert.Equal(t, uint64(0x0102030405060708), words[1])
	assert.Zero(t, words[0])
	assert.Equal(t, uint64(0x0102030405060708), conduit.LoadFlag(mem[8:16]))
	assert.Panics(t, func() { conduit.StoreFlag(mem[4:12], 1) })
	assert.Panics(t, func() { conduit.LoadFlag(mem[4:12]) })
}
