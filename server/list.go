package server

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/records"
)

// Page sizes of GET /runs.
const (
	defaultPageSize = 20
	maxPageSize     = 100
)

// runList is the body of GET /runs.
type runList struct {
	Runs       []records.RunSummary `json:"runs"`
	NextCursor *string              `json:"next_cursor"` // null on the last page
}

// listRuns lists stored runs, newest first, a page at a time.
func (s *Server) listRuns(c echo.Context) error {
	limit := defaultPageSize
	if v := c.QueryParam("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxPageSize || v[0] < '1' || v[0] > '9' { // no sign, no leading zero: one spelling of each number
			return badQuery("limit", v, "an integer from 1 to "+strconv.Itoa(maxPageSize))
		}
		limit = n
	}
	cursor := c.QueryParam("cursor")
	list, next, err := s.cfg.Store.Runs(c.Request().Context(), limit, cursor)
	if diag.ErrorCode(err) == diag.EINVALID {
		return badQuery("cursor", cursor, "the next_cursor of a previous page")
	}
	if err != nil {
		return err
	}
	for i := range list {
		list[i].Headline.Derive()
	}
	out := runList{Runs: list}
	if out.Runs == nil {
		out.Runs = []records.RunSummary{}
	}
	if next != "" {
		out.NextCursor = &next
	}
	return c.JSON(http.StatusOK, out)
}
