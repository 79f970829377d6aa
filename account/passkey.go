package account

import (
	"context"
	"errors"
	"fmt"

	"github.com/endodoi/endodoi/store"
)

// SignUpPasskey makes account id named name with a passkey, cred, and a
// session of it. The name was checked when the ceremony began; it is
// checked again, as it may have been taken since.
func (s *Service) SignUpPasskey(ctx context.Context, id, name string, cred store.Credential) (*Signed, error) {
	display, key, err := ParseUsername(name)
	if err != nil {
		return nil, err
	}
	cred.Kind = store.CredentialPasskey
	a := &store.Account{ID: id, Name: display, Key: key}
	sess, sid := s.newSession()
	if err := s.st.CreateAccount(ctx, a, []store.Credential{cred}, sess); err != nil {
		if errors.Is(err, store.ErrExists) {
			return nil, ErrNameTaken
		}
		return nil, fmt.Errorf("signing up with a passkey: %w", err)
	}
	return &Signed{Account: a, Session: sid, Expires: sess.Expires}, nil
}

// NameFree checks a name for a new account: ErrBadName, ErrNameTaken or
// nil, with the name as shown.
func (s *Service) NameFree(ctx context.Context, name string) (string, error) {
	display, key, err := ParseUsername(name)
	if err != nil {
		return "", err
	}
	_, err = s.st.AccountByKey(ctx, key)
	switch {
	case err == nil:
		return "", ErrNameTaken
	case errors.Is(err, store.ErrNotFound):
		return display, nil
	}
	return "", err
}
