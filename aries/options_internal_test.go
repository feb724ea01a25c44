package aries

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/fabric"
)

// Parsed values land in the options; the defaults stay where no option
// is given.
func TestParseOptionsValues(t *testing.T) {
	m, err := conduit.ParseOptions("exclude=9,3,7-8, routing=by-order,page_bytes=4K,bias=-3,ce=false,fail=2:5:1")
	require.NoError(t, err)
	o, err := parseOptions(m)
	require.NoError(t, err)
	assert.Equal(t, []int{3, 7, 8, 9}, o.excluded)
	assert.Equal(t, fabric.RouteByOrder, o.Routing)
	assert.Equal(t, int64(SmallPageBytes), o.pageBytes)
	assert.Equal(t, -3, o.bias)
	assert.True(t, o.noCE)
	assert.True(t, o.progressive)
	assert.Equal(t, []linkFault{{aries: 2, port: 5, lanes: 1}}, o.faults)
	def, err := parseOptions(nil)
	require.NoError(t, err)
	assert.Equal(t, options{Options: fabric.DefaultOptions(params), pageBytes: PageBytes, bias: DefaultBias, progressive: true, reroutePause: ReroutePause}, def)
}

// FuzzOptions: whatever PGAS_OPTIONS says (fail aside: its syntax has its
// own tests), parsing the options does not panic; every value accepted is
// in its option's declared range and reads back the same from the text
// its option writes; and the options written back parse to the same
// options.
func FuzzOptions(f *testing.F) {
	for _, s := range []string{
		"exclude=3,7-9,routing=adaptive", "exclude=", "exclude=1,,2", "exclude=9-7", "exclude=92543", "exclude=0-92543",
		"groups=2,chassis=6", "groups=241,bundle=1", "chassis=1446", "cabinets=482", "bias=-1048576", "bias=1048577",
		"valiant=true,progressive=false,ce=0", "page_bytes=4K", "page_bytes=2097152", "page_bytes=8K", "crc_error_rate=NaN",
		"crc_error_rate=0.999999", "coarse_bytes=0,coarse_packets=65536", "hazards=fail,trace=t.json", " groups = 3 , bundle = 7 ",
		"hash_address=F", "exclude= 1 - 3 , 5",
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
		set := 0
		for _, n := range []int{opts.groups, opts.chassis, opts.cabinets} {
			if n != 0 {
				set++
			}
		}
		if set > 1 {
			t.Fatalf("%q: more than one of groups, chassis, cabinets accepted", s)
		}
	})
}

// The default system is the smallest holding the job.
func TestDefaultSystem(t *testing.T) {
	for _, c := range []struct {
		nodes int
		want  string
	}{
		{1, "1 group of 1 chassis (64 nodes)"},
		{65, "1 group of 2 chassis (128 nodes)"},
		{384, "1 group (384 nodes)"},
		{385, "1 groups + 1 of 1 chassis (448 nodes), bundles of 240 cables"},
		{MaxNodes, "241 groups (92544 nodes), bundles of 1 cable"},
	} {
		var o options
		d, err := o.system(c.nodes)
		require.NoError(t, err)
		assert.Equal(t, c.want, d.String(), "%d nodes", c.nodes)
	}
	var o options
	_, err := o.system(MaxNodes + 1)
	assert.Error(t, err)
}
