package option

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// FuzzNodeList: whatever the text, ParseNodeList does not panic, and what
// it accepts is nodes in [0, maxNode], increasing, each named by the text;
// FormatNodeList writes them so that they parse back the same.
func FuzzNodeList(f *testing.F) {
	for _, s := range []string{"3,7-9", "0", "9,3,7-8,3", " 1 , 2 - 4 ", "0-92543", "92543", "92544", "", ",", "1,,2", "5-2",
		"-3", "3-", "1--3", "+1", "0x10", "99999999999999999999", "1-99999999999999999999", "7-7", "٣", "0-10,5-20,3"} {
		f.Add(s, 92543)
	}
	f.Add("0-5,5-9", 7)
	f.Add("0", 0)
	f.Fuzz(func(t *testing.T, s string, maxNode int) {
		if maxNode < 0 || maxNode > 1<<17 {
			return // aries's bound is 92543
		}
		l, err := ParseNodeList(s, maxNode)
		if err != nil {
			if l != nil {
				t.Fatalf("%q: error %v with a list %v", s, err, l)
			}
			return
		}
		if len(l) == 0 {
			t.Fatalf("%q: accepted as no nodes", s)
		}
		for i, n := range l {
			if n < 0 || n > maxNode || i > 0 && n <= l[i-1] {
				t.Fatalf("%q (max %d): %v is not increasing nodes in range", s, maxNode, l)
			}
		}
		// Every item is a node or a range, whose ends and middle are in
		// the list.
		for _, item := range strings.Split(s, ",") {
			a, b, isRange := strings.Cut(item, "-")
			lo, err1 := strconv.Atoi(strings.TrimSpace(a))
			hi := lo
			var err2 error
			if isRange {
				hi, err2 = strconv.Atoi(strings.TrimSpace(b))
			}
			if err1 != nil || err2 != nil || lo < 0 || hi < lo {
				t.Fatalf("%q: item %q accepted", s, item)
			}
			for _, n := range []int{lo, (lo + hi) / 2, hi} {
				if _, ok := slices.BinarySearch(l, n); !ok {
					t.Fatalf("%q: node %d of item %q missing from %v", s, n, item, l)
				}
			}
		}
		text := FormatNodeList(l)
		again, err := ParseNodeList(text, maxNode)
		if err != nil || !slices.Equal(l, again) {
			t.Fatalf("%q: %v written %q reads back as %v, %v", s, l, text, again, err)
		}
	})
}

// FuzzDims: whatever the text, ParseDims does not panic, and what it
// accepts is n sizes in [1, maxEach] with a product at most maxProduct;
// FormatDims writes them so that they parse back the same.
func FuzzDims(f *testing.F) {
	for _, s := range []string{"4x2x4", "0x0x0", "-2x2x2", "2x2x2x2", "2x2", "x", "", "65536x1x1", "65537x1x1", "256x256x2",
		"256x256x1", " 4 x 2 x 4 ", "4X2X4", "+1x1x1", "99999999999999999999x1x1", "1x1x1", "08x1x1"} {
		f.Add(s, 3, 65536, 65536)
	}
	f.Add("3x5", 2, 10, 20)
	f.Fuzz(func(t *testing.T, s string, n, maxEach, maxProduct int) {
		if n < 1 || n > 8 || maxEach < 1 || maxProduct < 1 {
			return
		}
		d, err := ParseDims(s, n, maxEach, maxProduct)
		if err != nil {
			if d != nil {
				t.Fatalf("%q: error %v with sizes %v", s, err, d)
			}
			return
		}
		if len(d) != n {
			t.Fatalf("%q: %d sizes, want %d", s, len(d), n)
		}
		p := 1
		for _, x := range d {
			if x < 1 || x > maxEach || p > maxProduct/x {
				t.Fatalf("%q: %v is not %d sizes in [1, %d] of product at most %d", s, d, n, maxEach, maxProduct)
			}
			p *= x
		}
		text := FormatDims(d)
		again, err := ParseDims(text, n, maxEach, maxProduct)
		if err != nil || !slices.Equal(d, again) {
			t.Fatalf("%q: %v written %q reads back as %v, %v", s, d, text, again, err)
		}
	})
}
