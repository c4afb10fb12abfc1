package ssh

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/eggo-project/eggo/providers"
)

// auth is how one hop authenticates: the methods for the ssh config, a
// human description of them for error messages (never the secrets), and
// what to close once the handshake is over.
type auth struct {
	methods []ssh.AuthMethod
	tried   []string
	closers []io.Closer
}

func (a *auth) Close() {
	for _, c := range a.closers {
		_ = c.Close()
	}
}

// authFor builds the auth methods of t: its private key file, the ssh-agent
// (when asked for, or when no key file is given and SSH_AUTH_SOCK is set)
// and the password held in the environment variable t.PasswordEnv.
func authFor(t providers.Target) (*auth, error) {
	a := &auth{}
	var signers []ssh.Signer
	if t.PrivateKeyFile != "" {
		s, err := loadKey(t)
		if err != nil {
			return nil, err
		}
		signers = append(signers, s)
		a.tried = append(a.tried, "private key "+t.PrivateKeyFile)
	}
	sock := os.Getenv("SSH_AUTH_SOCK")
	useAgent := t.Agent || (t.PrivateKeyFile == "" && sock != "")
	var agentSigners func() ([]ssh.Signer, error)
	if useAgent {
		if sock == "" {
			return nil, fmt.Errorf("%s: agent authentication requested but SSH_AUTH_SOCK is not set (start ssh-agent and ssh-add the key)", t.Name)
		}
		c, err := net.Dial("unix", sock)
		if err != nil {
			if t.Agent {
				return nil, fmt.Errorf("%s: cannot reach ssh-agent at SSH_AUTH_SOCK=%s: %w", t.Name, sock, err)
			}
			// The agent was only a fallback; other methods may still work.
		} else {
			a.closers = append(a.closers, c)
			agentSigners = agent.NewClient(c).Signers
			a.tried = append(a.tried, "ssh-agent")
		}
	}
	if len(signers) > 0 || agentSigners != nil {
		// One publickey method offering every key: the key file first.
		a.methods = append(a.methods, ssh.PublicKeysCallback(func() ([]ssh.Signer, error) {
			all := append([]ssh.Signer(nil), signers...)
			if agentSigners != nil {
				more, err := agentSigners()
				if err == nil {
					all = append(all, more...)
				}
			}
			return all, nil
		}))
	}
	if t.PasswordEnv != "" {
		pw, ok := os.LookupEnv(t.PasswordEnv)
		if !ok || pw == "" {
			a.Close()
			return nil, fmt.Errorf("%s: password_env names %s, but that environment variable is empty or not set", t.Name, t.PasswordEnv)
		}
		a.methods = append(a.methods, ssh.Password(pw), ssh.KeyboardInteractive(answerWith(pw)))
		a.tried = append(a.tried, "password from $"+t.PasswordEnv)
	}
	if len(a.methods) == 0 {
		return nil, fmt.Errorf("%s: no way to authenticate as %q: set private_key_file, agent = true (with SSH_AUTH_SOCK) or password_env", t.Name, t.User)
	}
	return a, nil
}

// answerWith answers every hidden keyboard-interactive prompt (the password
// prompt) with pw and visible ones with nothing.
func answerWith(pw string) ssh.KeyboardInteractiveChallenge {
	return func(_, _ string, questions []string, echos []bool) ([]string, error) {
		answers := make([]string, len(questions))
		for i := range questions {
			if !echos[i] {
				answers[i] = pw
			}
		}
		return answers, nil
	}
}

func loadKey(t providers.Target) (ssh.Signer, error) {
	path := expandHome(t.PrivateKeyFile)
	pemBytes, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: read private key file: %w", t.Name, err)
	}
	s, err := ssh.ParsePrivateKey(pemBytes)
	var missing *ssh.PassphraseMissingError
	switch {
	case errors.As(err, &missing):
		return nil, fmt.Errorf("%s: private key file %s is protected by a passphrase, and eggo never prompts: load it into ssh-agent (ssh-add %s) and set agent = true", t.Name, path, path)
	case err != nil:
		// The parser's message describes the format, never the content.
		return nil, fmt.Errorf("%s: private key file %s: %v", t.Name, path, err)
	}
	return s, nil
}

// expandHome turns a leading "~/" into the user's home directory.
func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}
