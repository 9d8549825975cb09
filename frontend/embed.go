// Package frontend embeds the built playground (frontend/dist, produced by
// `npm run build`). On a fresh clone dist holds only a placeholder, so `go build`
// works before the frontend has been built; the server then says how to build it.
package frontend

import (
	"embed"
	"io/fs"
)

//go:embed all:dist
var dist embed.FS

// FS returns the built playground files, rooted at dist.
func FS() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // dist is embedded at build time; it always exists
	}
	return sub
}

// Built reports whether the playground has been built into dist.
func Built() bool {
	_, err := fs.Stat(FS(), "index.html")
	return err == nil
}
