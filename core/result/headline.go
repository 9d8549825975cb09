package result

import "math"

// Headline is the handful of figures people compare runs by, keyed as the
// figures table names them (a stored run's and compare's headline).
type Headline struct {
	Issued         int64   `json:"issued"`
	Completed      int64   `json:"completed"`
	Failed         int64   `json:"failed"`
	TimedOut       int64   `json:"timed_out"`
	WaitMeanMS     float64 `json:"wait_mean_ms"`
	WaitP95MS      float64 `json:"wait_p95_ms"`
	WaitP99MS      float64 `json:"wait_p99_ms"`
	ResponseMeanMS float64 `json:"response_mean_ms"`
	ResponseP95MS  float64 `json:"response_p95_ms"`
	ResponseP99MS  float64 `json:"response_p99_ms"`
	UtilizationMax float64 `json:"utilization_max"`
	Jain           float64 `json:"jain_utilization"`
	NetworkSent    int64   `json:"network_sent"`
	// NetworkShare is the fraction of issued requests that crossed the
	// network to the queue that took them (network_sent / issued).
	NetworkShare float64 `json:"network_share"`
	// SaturatedMachines counts the machines that saturate while another
	// machine serving the same services has room (see Saturations).
	SaturatedMachines int `json:"saturated_machines,omitempty"`
}

// Derive fills the figures computed from the others (NetworkShare), for a
// headline read back from storage.
func (h *Headline) Derive() {
	h.NetworkShare = 0
	if h.Issued > 0 {
		h.NetworkShare = round6(float64(h.NetworkSent) / float64(h.Issued))
	}
}

// Figure is one named headline figure.
type Figure struct {
	Name  string
	Value float64
}

// Figures returns the headline figures in display order, named as the figures
// table names them (compare's diff keys).
func (h *Headline) Figures() []Figure {
	return []Figure{
		{"issued", float64(h.Issued)},
		{"completed", float64(h.Completed)},
		{"failed", float64(h.Failed)},
		{"timed_out", float64(h.TimedOut)},
		{"wait_mean_ms", h.WaitMeanMS},
		{"wait_p95_ms", h.WaitP95MS},
		{"wait_p99_ms", h.WaitP99MS},
		{"response_mean_ms", h.ResponseMeanMS},
		{"response_p95_ms", h.ResponseP95MS},
		{"response_p99_ms", h.ResponseP99MS},
		{"utilization_max", h.UtilizationMax},
		{"jain_utilization", h.Jain},
		{"network_sent", float64(h.NetworkSent)},
		{"network_share", h.NetworkShare},
		{"saturated_machines", float64(h.SaturatedMachines)},
	}
}

// HeadlineOf extracts the headline figures of a result: its headline (the
// figures table's, computed when the result has none).
func HeadlineOf(r *Result) Headline {
	m := r.Headline
	if m == nil {
		m = HeadlineFigures(r)
	}
	return Headline{
		Issued:            int64(m["issued"]),
		Completed:         int64(m["completed"]),
		Failed:            int64(m["failed"]),
		TimedOut:          int64(m["timed_out"]),
		WaitMeanMS:        m["wait_mean_ms"],
		WaitP95MS:         m["wait_p95_ms"],
		WaitP99MS:         m["wait_p99_ms"],
		ResponseMeanMS:    m["response_mean_ms"],
		ResponseP95MS:     m["response_p95_ms"],
		ResponseP99MS:     m["response_p99_ms"],
		UtilizationMax:    m["utilization_max"],
		Jain:              m["jain_utilization"],
		NetworkSent:       int64(m["network_sent"]),
		NetworkShare:      m["network_share"],
		SaturatedMachines: int(m["saturated_machines"]),
	}
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }
