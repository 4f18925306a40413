#!/usr/bin/env python3
"""A stand-in browser for signing in without a person: GET the URL given as
the last argument, following redirects (the conformance suite's and the
SDK examples' authorization servers answer /authorize with a redirect to
the client's loopback listener at once). Exit 0 when the last answer is
below 400, 1 otherwise. Prints nothing: the URLs carry state and codes."""
import sys
import urllib.error
import urllib.request

try:
    with urllib.request.urlopen(sys.argv[-1], timeout=10) as r:
        sys.exit(0 if r.status < 400 else 1)
except urllib.error.HTTPError:
    sys.exit(1)
except Exception:
    sys.exit(1)
