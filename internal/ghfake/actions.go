package ghfake

import "net/http"

// actionsState is the fake's Actions side: releases, dispatched runs and
// their artifacts.
type actionsState struct{}

func (a *actionsState) init() {}

func (s *Server) actionRoutes(mux *http.ServeMux) {}
