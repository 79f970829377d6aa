// Package browsertest drives the browser game in headless Chromium: it
// starts the real application (package server over package store, with the
// page of package web) on a local port, opens the page in a browser through
// the DevTools protocol (github.com/chromedp/chromedp) and plays it as a
// person would, by clicking, tapping and typing, then checks what the page
// shows against the JSON API.
//
// The package has only tests. They need Chromium: they look for
// $ENDODOI_CHROMIUM, then chromium, chromium-browser and google-chrome on
// the PATH. Without one they are skipped, unless ENDODOI_BROWSER_TESTS is
// "require" (as in CI), when they fail. Install it with
//
//	apt-get install chromium
//
// and run
//
//	go test ./internal/browsertest/
//
// Every test fails on a console error, an uncaught exception or a failed
// resource load in the page. With ENDODOI_SCREENSHOTS set to a folder, the
// tests also save screenshots of the main screens there as PNG files:
//
//	ENDODOI_SCREENSHOTS=$PWD/docs/screenshots go test ./internal/browsertest/
package browsertest
