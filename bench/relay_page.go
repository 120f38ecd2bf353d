//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/chromedp/chromedp"
)

// firstRender is the inbox page's first render in headless Chromium, local
// and over NATS (interleaved, rounds times each): from the navigation to
// every waiting card drawn and laid out (a frame painted after). It needs
// chromium on PATH (Debian's); without it, or in smoke, it is skipped and
// the report says so.
func (res *relayResult) firstRender(ctx context.Context, urls [2]string, rounds int, workDir string) error {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		res.renderSkipped = "chromium is not on PATH"
		return nil
	}
	profile := filepath.Join(workDir, "relay", "chromium-profile")
	if err := os.MkdirAll(profile, 0o700); err != nil {
		return err
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.UserDataDir(profile), chromedp.WindowSize(1440, 960))
	defer cancelAlloc()
	tab, cancelTab := chromedp.NewContext(actx)
	defer cancelTab()
	if err := chromedp.Do(tab, chromedp.Navigate("about:blank")); err != nil {
		return fmt.Errorf("starting chromium: %w", err)
	}
	drawn := fmt.Sprintf(`document.querySelectorAll('#waiting-list article.card').length >= %d`, res.waiting)
	for range rounds {
		for i, u := range urls {
			rctx, cancel := context.WithTimeout(tab, time.Minute)
			t0 := time.Now()
			// Drawn, then two frames: the second animation frame comes
			// after the first one's style, layout and paint of the cards.
			err := chromedp.Do(rctx, chromedp.Navigate(u), chromedp.Poll[chromedp.Void](drawn,
				chromedp.WithPollingInterval(5*time.Millisecond), chromedp.WithPollingTimeout(50*time.Second)))
			if err == nil {
				_, err = chromedp.Run(rctx, chromedp.Evaluate[bool](`new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, chromedp.EvalAwaitPromise))
			}
			took := time.Since(t0)
			if err == nil {
				err = chromedp.Do(rctx, chromedp.Navigate("about:blank"))
			}
			cancel()
			if err != nil {
				return fmt.Errorf("the page's first render (%s): %w", []string{"local", "NATS"}[i], err)
			}
			if i == 0 {
				res.localRender = append(res.localRender, took)
			} else {
				res.natsRender = append(res.natsRender, took)
			}
		}
	}
	return nil
}
