#!/usr/bin/env python3
"""A stand-in browser for signing in without a person: GET the URL given as
the last argument, following redirects (the conformance suite's and the
SDK examples' authorization servers answer /authorize with a redirect to
the client's loopback listener at once). Exit 0 when the last answer is
below 400, 1 otherwise. Prints nothing: the URLs carry state and codes.

With FOLLOW_REDIRECTS_RECORD=FILE, every URL visited (the first and each
redirect target) is appended to FILE, one a line: tests use it to look
for these values where they must not be."""
import os
import sys
import urllib.error
import urllib.request

record = os.environ.get("FOLLOW_REDIRECTS_RECORD")


def note(url):
    if record:
        with open(record, "a") as f:
            f.write(url + "\n")


class Recording(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        note(newurl)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


note(sys.argv[-1])
opener = urllib.request.build_opener(Recording)
try:
    with opener.open(sys.argv[-1], timeout=10) as r:
        sys.exit(0 if r.status < 400 else 1)
except Exception:
    sys.exit(1)
