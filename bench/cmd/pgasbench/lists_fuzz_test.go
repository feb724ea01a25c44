package main

import (
	"slices"
	"testing"

	"github.com/gopgas/gopgas/internal/units"
)

// FuzzSizeRange: whatever -m says, the sizes are from 0 to 1 GiB, each
// double the one before (after a 0), and writing the range back as MIN:MAX
// gives the same sizes.
func FuzzSizeRange(f *testing.F) {
	for _, s := range []string{"8", "1K:64K", "0:4M", "3:100", ":", "1G", "2G", "4K:1K", "1.5K", "-1", "8 : 16", "1T:2T"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o := &options{sizeMin: 1, sizeMax: 4 << 20, sizes: s}
		sizes, err := o.sizeList()
		if err != nil {
			return
		}
		for i, n := range sizes {
			if n < 0 || n > maxMessage {
				t.Fatalf("-m %q gave size %d", s, n)
			}
			if i > 0 && n != 2*sizes[i-1] && !(sizes[i-1] == 0 && n == 1) {
				t.Fatalf("-m %q gave %v: not doubling", s, sizes)
			}
		}
		if len(sizes) == 0 {
			return
		}
		back := &options{sizeMin: 1, sizeMax: 4 << 20, sizes: units.FormatBytes(int64(sizes[0])) + ":" + units.FormatBytes(int64(sizes[len(sizes)-1]))}
		again, err := back.sizeList()
		if err != nil || !slices.Equal(again, sizes) {
			t.Fatalf("-m %q gave %v; -m %s gives %v, %v", s, sizes, back.sizes, again, err)
		}
	})
}

// FuzzSizeList: whatever --sweep-sizes says, each size is from 1 B to
// 1 GiB, and the list written back reads the same.
func FuzzSizeList(f *testing.F) {
	for _, s := range []string{"16K,64K", "1", "1,,2", "0", "1G", "2G", " 8 , 4K ", "x", "4K;8K"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sizes, err := parseSizes("sweep-sizes", s)
		if err != nil {
			return
		}
		for _, n := range sizes {
			if n < 1 || n > maxMessage {
				t.Fatalf("--sweep-sizes %q gave %d", s, n)
			}
		}
		again, err := parseSizes("sweep-sizes", joinSizes(sizes))
		if err != nil || !slices.Equal(again, sizes) {
			t.Fatalf("--sweep-sizes %q gave %v; written back %v, %v", s, sizes, again, err)
		}
	})
}

// FuzzIntList: whatever --ppn-list says, each count is from 1 to 2^20, and
// the list written back reads the same.
func FuzzIntList(f *testing.F) {
	for _, s := range []string{"1,2,3,4,6,8,12,16,24", "0", "-1", "1048577", "1,,2", " 3 ", "2x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ns, err := parseInts("ppn-list", s)
		if err != nil {
			return
		}
		for _, n := range ns {
			if n < 1 || n > maxListInt {
				t.Fatalf("--ppn-list %q gave %d", s, n)
			}
		}
		again, err := parseInts("ppn-list", joinInts(ns))
		if err != nil || !slices.Equal(again, ns) {
			t.Fatalf("--ppn-list %q gave %v; written back %v, %v", s, ns, again, err)
		}
	})
}
