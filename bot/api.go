package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// MaxAnswer bounds what the bot reads of one HTTP answer or one live
// message: a game's view lists its positions and sowings, bounded by the
// server, and stays far below this.
const MaxAnswer = 8 << 20

// Player is a player as the server shows one.
type Player struct {
	Name        string   `json:"name"`
	Rating      *float64 `json:"rating"`
	Provisional bool     `json:"provisional"`
	Bot         bool     `json:"bot"`
}

// Clock is a time control: minutes for the whole game and seconds added
// after each move, or days for each move (correspondence). A nil *Clock is
// a game without a clock.
type Clock struct {
	Minutes   int `json:"minutes,omitempty"`
	Increment int `json:"increment,omitempty"`
	Days      int `json:"days,omitempty"`
}

// String writes the clock as the options read it: "5+3", "3d".
func (c *Clock) String() string {
	switch {
	case c == nil || *c == Clock{}:
		return "none"
	case c.Days > 0:
		return strconv.Itoa(c.Days) + "d"
	}
	return strconv.Itoa(c.Minutes) + "+" + strconv.Itoa(c.Increment)
}

// Challenge is a challenge to the bot from a player.
type Challenge struct {
	ID      string    `json:"id"`
	From    Player    `json:"from"`
	To      Player    `json:"to"`
	Holes   int       `json:"holes"`
	Seeds   int       `json:"seeds"`
	Variant string    `json:"variant"`
	Clock   *Clock    `json:"clock"`
	Rated   bool      `json:"rated"`
	Side    string    `json:"side"`
	Created time.Time `json:"created"`
}

// lobbyMessage is a message of the lobby's live socket; the bot reads the
// parts that concern it.
type lobbyMessage struct {
	Type       string `json:"type"`
	Challenges *struct {
		Incoming []Challenge `json:"incoming"`
	} `json:"challenges"`
	Challenge *Challenge `json:"challenge"`
	ID        string     `json:"id"`
	Why       string     `json:"why"`
	Game      string     `json:"game"`
	Side      string     `json:"side"`
}

// gameView is the part of a game's view (GET /api/games/{id}) the bot
// plays from.
type gameView struct {
	ID         string      `json:"id"`
	Holes      int         `json:"holes"`
	Variant    string      `json:"variant"`
	MaxLaps    int         `json:"maxLaps"`
	Start      string      `json:"start"`
	Moves      []string    `json:"moves"`
	ToMove     string      `json:"toMove"`
	LegalMoves []string    `json:"legalMoves"`
	Status     string      `json:"status"`
	Result     string      `json:"result"`
	Online     *onlineView `json:"online"`
	You        string      `json:"you"`
}

type onlineView struct {
	Seats struct {
		South bool `json:"s"`
		North bool `json:"n"`
	} `json:"seats"`
	Clock  *Clock `json:"clock"`
	Clocks struct {
		South int64 `json:"s"`
		North int64 `json:"n"`
	} `json:"clocks"`
	Running string `json:"running"`
	End     string `json:"end"`
	Rev     int64  `json:"rev"`
	// The side that made an open offer, or "".
	DrawOffer     string `json:"drawOffer"`
	TakebackOffer string `json:"takebackOffer"`
}

// over reports whether the game takes no more moves.
func (g *gameView) over() bool {
	return g.Status != "playing" || g.Result != "*" || (g.Online != nil && g.Online.End != "")
}

// liveMessage is a message of a game's live socket.
type liveMessage struct {
	Type   string    `json:"type"`
	Game   *gameView `json:"game"`
	Event  string    `json:"event"`
	Status int       `json:"status"`
	Error  string    `json:"error"`
}

// moveMessage is a move as the live connection tells it (docs/api.md,
// Live updates): what the move changed of the game.
type moveMessage struct {
	ID         string      `json:"id"`
	Rev        int64       `json:"rev"`
	Ply        int         `json:"ply"`
	Move       string      `json:"move"`
	ToMove     string      `json:"toMove"`
	LegalMoves []string    `json:"legalMoves"`
	Status     string      `json:"status"`
	Result     string      `json:"result"`
	Online     *onlineView `json:"online"`
}

// liveProtocol is the version of the live connection's messages the bot
// speaks: a move comes as a move message, applied to the game last told.
const liveProtocol = 2

// follow is game v as move message m leaves it; false when m does not
// follow v (a message missed), and the game is to be asked for again.
func follow(v *gameView, m *moveMessage) (*gameView, bool) {
	if v == nil || v.Online == nil || m.Online == nil || m.ID != v.ID || m.Rev != v.Online.Rev+1 || m.Ply != len(v.Moves)+1 {
		return nil, false
	}
	next := *v
	next.Moves = append(slices.Clip(v.Moves), m.Move)
	next.ToMove, next.LegalMoves, next.Status, next.Result = m.ToMove, m.LegalMoves, m.Status, m.Result
	o := *m.Online
	next.Online = &o
	return &next, true
}

// myGame is one of the account's games as GET /api/me/games lists them.
type myGame struct {
	ID     string `json:"id"`
	Side   string `json:"side"`
	Online bool   `json:"online"`
	Status string `json:"status"`
	Result string `json:"result"`
	End    string `json:"end"`
}

// APIError is an answer of the server that is not a success.
type APIError struct {
	Method, Path string
	Status       int
	Message      string
	RetryAfter   time.Duration // from Retry-After, or 0
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Status, e.Message)
}

// statusOf returns the HTTP status of err, or 0 when the server gave none
// (the request did not get an answer).
func statusOf(err error) int {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Status
	}
	return 0
}

// client speaks the server's JSON API as the bot's account.
type client struct {
	base  *url.URL
	token string // sent as the bearer; never logged
	http  *http.Client
}

// newClient checks the server's address and returns a client of it.
func newClient(server, token string, hc *http.Client) (*client, error) {
	u, err := url.Parse(server)
	if err != nil {
		return nil, fmt.Errorf("server address %q: %w", server, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("server address %q: want http://host[:port] or https://host[:port]", server)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("server address %q: want no user, query or fragment", server)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	if !validToken(token) {
		return nil, errors.New("that is not a bot's token (bot_ and 43 letters, digits, - or _): copy it as endodoi admin bot printed it")
	}
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	return &client{base: u, token: token, http: hc}, nil
}

// url returns the address of an API path.
func (c *client) url(path string) string {
	return c.base.String() + path
}

// liveURL returns the WebSocket address of an API path.
func (c *client) liveURL(path string) string {
	u := *c.base
	if u.Scheme == "https" {
		u.Scheme = "wss"
	} else {
		u.Scheme = "ws"
	}
	return u.String() + path
}

// header is what every request of the bot carries.
func (c *client) header() http.Header {
	h := http.Header{}
	h.Set("Authorization", "Bearer "+c.token)
	h.Set("User-Agent", "endodoi-bot")
	return h
}

// do sends a request with body (JSON, nil for none) and decodes a
// successful answer into out (nil to discard it).
func (c *client) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("%s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	} else if method == http.MethodPost {
		rd = strings.NewReader("{}")
	}
	req, err := http.NewRequestWithContext(ctx, method, c.url(path), rd)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.Header = c.header()
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswer+1))
	if err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	if len(data) > MaxAnswer {
		return fmt.Errorf("%s %s: an answer over %d bytes", method, path, MaxAnswer)
	}
	if resp.StatusCode >= 300 {
		ae := &APIError{Method: method, Path: path, Status: resp.StatusCode}
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			ae.Message = clip(e.Error, 300)
		} else {
			ae.Message = http.StatusText(resp.StatusCode)
		}
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			ae.RetryAfter = time.Duration(min(s, 3600)) * time.Second
		}
		return ae
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("%s %s: the answer is not what the API says: %w", method, path, err)
		}
	}
	return nil
}

// clip shortens what the server or the engine said to n bytes for a log
// line, on a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// validToken reports whether token has the form of a bot's token: the
// server takes any other for a seat's, and the bot would sit in the lobby
// as nobody.
func validToken(token string) bool {
	rest, ok := strings.CutPrefix(token, "bot_")
	if !ok || len(rest) != 43 {
		return false
	}
	for i := range len(rest) {
		if c := rest[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// validGameID reports whether id has the form of a game's ID (16
// hexadecimal digits), so that an ID from the server can go into a path.
func validGameID(id string) bool {
	if len(id) != 16 {
		return false
	}
	for i := range len(id) {
		if c := id[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// parseSide reads "s" or "n".
func parseSide(s string) (rules.Side, bool) {
	switch s {
	case "s":
		return rules.South, true
	case "n":
		return rules.North, true
	}
	return 0, false
}
