// Package web serves read-only HTML pages of what the bot recorded in its
// state database (package store): the recent series and pull-request
// heads with their verdicts, one page per series (patches, findings,
// the stable matrix, VM results with the console excerpts) and one page
// per finding at a stable URL by its id (finding/<id>), which replies and
// GitHub reviews link to when web.base_url is set (Options.FindingURL).
//
// Pictures are drawn on the server: a finding's call chain as an SVG
// graph (chain.go: functions as boxes in one column per file, the atomic
// context entered and the sleeping call marked), a wakeup finding's
// CPU 0 / CPU 1 interleaving as a two-column timeline (timeline.go,
// parsed from the finding's evidence lines), and the stable matrix as a
// table whose cells say their state in words and symbols as well as in
// colour (matrix.go). Pages are plain html/template (templates/, embedded),
// with no JavaScript and no external assets; everything that comes from
// mail or code is escaped, and the Content-Security-Policy forbids
// scripts. Links between pages are relative, so the pages work behind a
// reverse proxy that serves them under a path.
//
// Nothing here writes to the store. `watch` mounts Handler on its
// metrics address beside /metrics and /healthz; `serve` serves it over an
// existing state database.
package web
