package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"
)

// Defaults of [NewHTTPServer]; docs/DESIGN.md says why each is what it is.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultIdleTimeout       = 2 * time.Minute
	DefaultMaxHeaderBytes    = 64 << 10
)

// HTTPServer is an [http.Server] set up to hold many long AG-UI runs safely,
// with a Shutdown that ends them.
//
// Use it as an http.Server (the fields can be changed before it serves):
//
//	srv := server.NewHTTPServer(":8000", mux)
//	go srv.ListenAndServe()
//	…
//	srv.Shutdown(ctx) // every live run ends with RUN_ERROR CANCELLED "run cancelled: the server is shutting down"
type HTTPServer struct {
	*http.Server
	shut context.CancelCauseFunc
	life *lifetime
}

// lifetime is what an [HTTPServer] shares with the handlers it serves,
// through the value of its requests' contexts: the context its Shutdown
// cancels, and a count of the runs that outlive their request (durable runs
// left running with no reader, [DurableConfig.Detach]). No request is
// waiting for those, so net/http's Shutdown would return while they still
// run; the count is what Shutdown waits on instead.
type lifetime struct {
	ctx context.Context

	mu   sync.Mutex
	runs int
	idle chan struct{} // made by a waiter, closed when runs drops to 0
}

type lifetimeKey struct{}

// lifetimeOf returns the lifetime of the HTTPServer serving ctx's request,
// or nil under any other server.
func lifetimeOf(ctx context.Context) *lifetime {
	lt, _ := ctx.Value(lifetimeKey{}).(*lifetime)
	return lt
}

// hold counts a run that may outlive its request; release uncounts it.
func (lt *lifetime) hold() {
	lt.mu.Lock()
	lt.runs++
	lt.mu.Unlock()
}

func (lt *lifetime) release() {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if lt.runs--; lt.runs == 0 && lt.idle != nil {
		close(lt.idle)
		lt.idle = nil
	}
}

// wait returns once no counted run is left, or with ctx's error.
func (lt *lifetime) wait(ctx context.Context) error {
	lt.mu.Lock()
	if lt.runs == 0 {
		lt.mu.Unlock()
		return nil
	}
	if lt.idle == nil {
		lt.idle = make(chan struct{})
	}
	idle := lt.idle
	lt.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// NewHTTPServer returns a server for handler on addr with the limits a
// server exposed to untrusted clients needs and that net/http leaves off:
//
//   - ReadHeaderTimeout (10s): a client that drips its request head is cut;
//   - IdleTimeout (2m): an idle keep-alive connection is closed;
//   - MaxHeaderBytes (64 KiB) instead of net/http's 1 MiB.
//
// It sets no ReadTimeout and no WriteTimeout on purpose: net/http applies
// them to the whole exchange, so they would cut every stream longer than the
// timeout. The AG-UI handler bounds each part itself instead: the body read
// ([WithBodyTimeout]), each write without progress ([WithWriteTimeout]) and
// the run ([WithTimeout]).
//
// Every request's context derives from one that [HTTPServer.Shutdown]
// cancels with [ErrServerShutdown], which net/http's own Shutdown does not
// do: runs in flight end at once with one terminal RUN_ERROR that says so,
// instead of holding Shutdown until its context expires. That includes
// durable runs that no client is reading ([DurableConfig.Detach]): they end
// the same way, their terminal event in the run log, before Shutdown
// returns.
func NewHTTPServer(addr string, handler http.Handler) *HTTPServer {
	base, shut := context.WithCancelCause(context.Background())
	life := &lifetime{ctx: base}
	base = context.WithValue(base, lifetimeKey{}, life)
	return &HTTPServer{
		Server: &http.Server{
			Addr:              addr,
			Handler:           handler,
			ReadHeaderTimeout: DefaultReadHeaderTimeout,
			IdleTimeout:       DefaultIdleTimeout,
			MaxHeaderBytes:    DefaultMaxHeaderBytes,
			BaseContext:       func(net.Listener) context.Context { return base },
		},
		shut: shut,
		life: life,
	}
}

// Shutdown cancels every live run with cause [ErrServerShutdown], then shuts
// the server down gracefully as [http.Server.Shutdown] does: it stops
// accepting, waits for the handlers (which return once their run has written
// its terminal event) and closes the connections; then it waits for the
// durable runs no request was waiting for to write theirs. If ctx ends
// first, it closes what is left and returns ctx's error.
func (s *HTTPServer) Shutdown(ctx context.Context) error {
	s.shut(ErrServerShutdown)
	err := s.Server.Shutdown(ctx)
	if err == nil && s.life != nil {
		err = s.life.wait(ctx)
	}
	if err != nil {
		s.Server.Close()
	}
	return err
}

// ServeUntil serves on ln until ctx is done, then shuts down as
// [HTTPServer.Shutdown] does, giving runs in flight up to grace to write
// their terminal event. It returns the error that stopped serving, or
// Shutdown's; a clean stop returns nil. It is the serve-then-drain loop every
// command that runs an agent would otherwise write again.
func (s *HTTPServer) ServeUntil(ctx context.Context, ln net.Listener, grace time.Duration) error {
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer cancel()
	err := s.Shutdown(shutdown)
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
