package server

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// ProblemListener wraps l so that the errors Go's HTTP server writes on its
// own, before any handler runs (a malformed request line or header, headers
// over the limit, an unsupported transfer coding), leave as problem
// documents like every other error, instead of plain text.
func ProblemListener(l net.Listener) net.Listener { return problemListener{l} }

type problemListener struct{ net.Listener }

func (l problemListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &problemConn{Conn: c}, nil
}

// problemConn rewrites the one kind of write net/http makes straight to
// the connection for a request it could not read: a status line followed
// by exactly these headers and a text body. Handlers' answers never look
// like that (they carry the security headers, and a Date).
type problemConn struct{ net.Conn }

// plainErrorHeaders are the headers net/http writes with those errors.
const plainErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

func (c *problemConn) Write(p []byte) (int, error) {
	if rewritten, ok := problemFromPlain(p); ok {
		if _, err := c.Conn.Write(rewritten); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// problemFromPlain turns one of net/http's plain-text error answers into
// a problem document answer; ok is false for anything else.
func problemFromPlain(p []byte) ([]byte, bool) {
	rest, found := bytes.CutPrefix(p, []byte("HTTP/1.1 "))
	if !found || len(rest) < 4 || rest[3] != ' ' && rest[3] != ':' {
		return nil, false
	}
	status, err := strconv.Atoi(string(rest[:3]))
	if err != nil || status < 400 || status > 599 {
		return nil, false
	}
	line, body, found := bytes.Cut(rest, []byte(plainErrorHeaders))
	if !found || bytes.Contains(line, []byte("\r\n")) {
		return nil, false
	}
	text := string(bytes.TrimPrefix(body, []byte(strconv.Itoa(status)+" "+http.StatusText(status))))
	slug, detail := "malformed-request", "the request could not be read (a malformed request line or header)"
	if text, ok := strings.CutPrefix(text, ": "); ok {
		detail = "the request could not be read: " + text
	}
	switch status {
	case http.StatusRequestHeaderFieldsTooLarge:
		slug, detail = "headers-too-large", "the request's line and headers are over the limit of 1 MiB"
	case http.StatusNotImplemented:
		slug, detail = "unsupported-transfer-encoding", "the request's Transfer-Encoding is not one this server reads: send chunked or a Content-Length"
	}
	doc, _ := json.Marshal(Problem{Type: ProblemTypeBase + slug, Title: http.StatusText(status), Status: status, Detail: capLong(detail)})
	var out bytes.Buffer
	out.WriteString("HTTP/1.1 " + strconv.Itoa(status) + " " + http.StatusText(status) + "\r\n")
	out.WriteString("Content-Type: application/problem+json\r\nConnection: close\r\n")
	out.WriteString("X-Content-Type-Options: nosniff\r\nContent-Length: " + strconv.Itoa(len(doc)) + "\r\n\r\n")
	out.Write(doc)
	return out.Bytes(), true
}
