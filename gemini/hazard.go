package gemini

import "github.com/gopgas/gopgas/internal/fabric"

// Hazard is one get that read bytes around an earlier put: the race of
// MOP IV.A, Figure 7, which the hazards option reports. With relaxed
// network ordering the get's request can overtake the put's packets in the
// network (adaptive routing) and its non-posted read can pass the put's
// posted writes at the target's host.
type Hazard = fabric.Hazard
