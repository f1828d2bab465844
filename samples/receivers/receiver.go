package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A signature further from now than this is refused: a replay.
const toleranceSeconds = 5 * 60

var (
	taskKey  = regexp.MustCompile(`^([1-9][0-9]{0,15})_([0-9]{1,15})$`)
	triggers = map[string]bool{"schedule": true, "manual": true, "retry": true, "backfill": true}
)

// Run is the run an xtimer call is for, as verifyCallback of xtimer/client returns it.
type Run struct {
	TaskID      string
	TimerID     int64
	ScheduledAt int64 // epoch ms
	Attempt     int
	Trigger     string
}

// header is a request header as Node.js reads it: absent, or its values joined by ", ".
func header(h http.Header, name string) (string, bool) {
	values := h.Values(name)
	return strings.Join(values, ", "), len(values) > 0
}

// verifyCallback checks a Standard Webhooks signature (HMAC-SHA256 of "id.timestamp.body")
// and that the X-Xtimer-* headers say what the signed task id says.
func verifyCallback(h http.Header, body []byte, key []byte) (Run, error) {
	id, _ := header(h, "webhook-id")
	timestamp, _ := header(h, "webhook-timestamp")
	signatures, _ := header(h, "webhook-signature")
	if id == "" || timestamp == "" || signatures == "" {
		return Run{}, errors.New("not signed")
	}
	signedAt, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return Run{}, errors.New("bad webhook-timestamp")
	}
	now := time.Now().Unix()
	if now-signedAt > toleranceSeconds || signedAt > now+toleranceSeconds {
		return Run{}, errors.New("stale webhook-timestamp")
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.", id, signedAt)
	mac.Write(body)
	expected := []byte(base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	// A secret being rotated out sends two signatures, space-separated: either will do.
	matched := false
	for _, s := range strings.Split(signatures, " ") {
		version, signature, _ := strings.Cut(s, ",")
		if version == "v1" && hmac.Equal([]byte(signature), expected) {
			matched = true
		}
	}
	if !matched {
		return Run{}, errors.New("no matching signature")
	}
	parts := taskKey.FindStringSubmatch(id)
	if parts == nil {
		return Run{}, errors.New("webhook-id is not an xtimer task id")
	}
	// The X-Xtimer-* headers are not signed: they must agree with the signed task id.
	for name, value := range map[string]string{
		"x-xtimer-task-id":      id,
		"x-xtimer-timer-id":     parts[1],
		"x-xtimer-scheduled-at": parts[2],
	} {
		if got, ok := header(h, name); ok && got != value {
			return Run{}, fmt.Errorf("%s does not match the signed task id", name)
		}
	}
	attemptText, ok := header(h, "x-xtimer-attempt")
	if !ok {
		attemptText = "1"
	}
	trigger, ok := header(h, "x-xtimer-trigger")
	if !ok {
		trigger = "schedule"
	}
	attempt, err := strconv.Atoi(attemptText)
	if err != nil || attempt < 1 || !triggers[trigger] {
		return Run{}, errors.New("bad x-xtimer-attempt or x-xtimer-trigger")
	}
	timerID, _ := strconv.ParseInt(parts[1], 10, 64)
	scheduledAt, _ := strconv.ParseInt(parts[2], 10, 64)
	return Run{TaskID: id, TimerID: timerID, ScheduledAt: scheduledAt, Attempt: attempt, Trigger: trigger}, nil
}

// The timer's callback.body as sent: none unless the timer sets one, and not always JSON.
func doTheWork(body string, scheduledAt int64) {
	if body == "" {
		body = "(no body)"
	}
	fmt.Println("run for", time.UnixMilli(scheduledAt).UTC().Format("2006-01-02T15:04:05.000Z07:00"), body)
}

func answer(w http.ResponseWriter, status int, text string) {
	w.Header().Set("content-type", "text/plain")
	w.WriteHeader(status)
	io.WriteString(w, text)
}

func main() {
	secret := os.Getenv("XTIMER_SIGNING_SECRET") // "whsec_…", from POST /api/v1/apps
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || len(key) == 0 {
		log.Fatal("XTIMER_SIGNING_SECRET must be the app's signing secret, whsec_…")
	}
	var mu sync.Mutex
	done := map[string]bool{} // use a table with a unique key on the task id in production

	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			answer(w, http.StatusBadRequest, "unreadable body")
			return
		}
		run, err := verifyCallback(r.Header, body, key)
		if err != nil {
			answer(w, http.StatusUnauthorized, "bad signature")
			return
		}
		// One run's work at a time, so a run delivered twice at once is still done once.
		mu.Lock()
		defer mu.Unlock()
		if !done[run.TaskID] {
			doTheWork(string(body), run.ScheduledAt) // your job
			done[run.TaskID] = true
		}
		answer(w, http.StatusOK, "ok") // 2xx = done; 5xx and 429 are retried (attempt + 1)
	})
	port := os.Getenv("PORT")
	if port == "" {
		port = "3000"
	}
	log.Fatal(http.ListenAndServe(":"+port, nil))
}
