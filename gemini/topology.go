package gemini

import "github.com/gopgas/gopgas/gemini/torus"

// The torus's geometry lives in package torus (gemini/torus). The names
// below are those of it that users of this package have called through
// gemini (the calibration among them) and keep doing so; each is the
// torus name of the same name. New code may use package torus directly.

// Torus is the Gemini-level 3D torus (torus.Torus).
type Torus = torus.Torus

// Class is a packaging class of the whitepaper's Table 1, or the m-series
// (torus.Class).
type Class = torus.Class

// LaneBitsPerSecond is the raw signalling rate of one lane of a Gemini
// link, per direction (torus.LaneBitsPerSecond).
const LaneBitsPerSecond = torus.LaneBitsPerSecond

// ForCabinets returns the Table 1 torus of rows rows of perRow cabinets and
// its class (torus.ForCabinets).
func ForCabinets(perRow, rows int) (*Torus, Class, error) { return torus.ForCabinets(perRow, rows) }

// MSeries returns the 2D torus of an m-series system of cabinets cabinets
// (torus.MSeries).
func MSeries(cabinets, singleCabinetY int) (*Torus, error) {
	return torus.MSeries(cabinets, singleCabinetY)
}
