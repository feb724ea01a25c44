package gemini

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/gemini/torus"
)

// y_open opens y whichever option chose the system, the default one
// included; without it y is a ring.
func TestYOpen(t *testing.T) {
	for _, opts := range []map[string]string{{}, {"torus": "2x2x2"}, {"cabinets": "1"}, {"mseries": "1", "mseries_y": "8"}} {
		for _, open := range []string{"", "true", "false"} {
			o := map[string]string{}
			for k, v := range opts {
				o[k] = v
			}
			if open != "" {
				o["y_open"] = open
			}
			parsed, err := parseOptions(o)
			require.NoError(t, err, "%v", o)
			tor, err := parsed.system(4)
			require.NoError(t, err, "%v", o)
			assert.Equal(t, open != "true", tor.YClosed, "%v", o)
		}
	}
}

// Parsed values land in the options.
func TestParseOptionsValues(t *testing.T) {
	o, err := parseOptions(map[string]string{"torus": "4x2x4", "coarse_bytes": "1M", "crc_error_rate": "0.125", "fail": "1:y:-:0"})
	require.NoError(t, err)
	assert.Equal(t, [3]int{4, 2, 4}, [3]int{o.gx, o.gy, o.gz})
	assert.Equal(t, 1<<20, o.CoarseBytes)
	assert.Equal(t, 0.125, o.CRCErrorRate)
	assert.Equal(t, []linkFault{{gemini: 1, dim: torus.DimY, dir: torus.DirMinus}}, o.faults)
	def, err := parseOptions(nil)
	require.NoError(t, err)
	assert.Equal(t, DefaultCoarseBytes, def.CoarseBytes)
}

// FuzzOptions: whatever PGAS_OPTIONS says (fail aside: its syntax has its
// own tests), parsing the options does not panic; every value accepted is
// in its option's declared range and reads back the same from the text
// its option writes; the options written back parse to the same options;
// and the torus they ask for is built or refused, never a panic.
func FuzzOptions(f *testing.F) {
	for _, s := range []string{
		"torus=4x2x4", "torus=0x0x0", "torus=-2x2x2", "torus=2x2x2x2", "cabinets=-1", "rows=-3,cabinets=2", "mseries=-1",
		"torus=4x2x4,cabinets=2", "crc_error_rate=NaN", "crc_error_rate=0.5,hazards=log,routing=by-order",
		"cabinets=17", "cabinets=16,rows=2", "mseries=1,mseries_y=12", "mseries=3,y_open=true", "coarse_bytes=64K,coarse_packets=4",
		"trace=x.json,hash_address=T", " torus = 1x1x1 , y_open = 1", "torus=65536x1x1", "mseries=2,mseries_y=8", "rows=2",
		"coarse_bytes=1T", "crc_error_rate=0x1p-3", "cabinets=1365,rows=1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := conduit.ParseOptions(s)
		if err != nil {
			return
		}
		delete(m, "fail")
		opts, err := parseOptions(m)
		if err != nil {
			return
		}
		back, err := optionTable.RoundTrip(m)
		if err != nil {
			t.Fatalf("%q: accepted, but %v", s, err)
		}
		opts2, err := parseOptions(back)
		if err != nil || !reflect.DeepEqual(opts, opts2) {
			t.Fatalf("%q: options %+v written as %q parse to %+v, %v", s, opts, back, opts2, err)
		}
		if tor, err := opts.system(2); err == nil && tor.Geminis() > torus.MaxGeminis {
			t.Fatalf("%q: torus %v of more than %d Geminis", s, tor, torus.MaxGeminis)
		}
	})
}
