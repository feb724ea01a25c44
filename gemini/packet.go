package gemini

import "github.com/gopgas/gopgas/internal/fabric"

// Gemini's packet formats (G-PHIT; WP 3), in phits: the fabric counts a
// packet's size in them.
var sizes = fabric.Sizes{
	Request:       requestPhits,
	GetRequest:    getRequestPhits(),
	DataResponse:  dataResponsePhits,
	Response:      ResponseHeaderPhits,
	ErrorResponse: ErrorResponsePhits,
}

// requestPhits is the size of a request packet: a 7-phit header, the
// data, the end-of-packet phit.
func requestPhits(data int) int { return RequestHeaderPhits + dataPhits(data) + EOPPhits }

// getRequestPhits: a get request has no data: 8 phits.
func getRequestPhits() int { return RequestHeaderPhits + EOPPhits }

// dataResponsePhits: a response with data: 2-phit header, data, EOP (27
// phits for 64 bytes).
func dataResponsePhits(data int) int { return ResponseHeaderPhits + dataPhits(data) + EOPPhits }

// dataPhits is the phits n bytes of data occupy: 3 per 8 bytes (WP 3:
// "An 8-byte write requires an 11-phit request (7 header, 3 data and 1
// EOP)", 64 bytes take 24).
func dataPhits(n int) int { return (n*DataPhitsPer64B + MaxPacketData - 1) / MaxPacketData }
