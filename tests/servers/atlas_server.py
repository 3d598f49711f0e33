# atlas_server.py PORTFILE RESULTS.json (tests/cli/atlas.sh): the part of
# RIPE Atlas' results endpoint the atlas format uses, on loopback:
# GET /api/v2/measurements/ID/results/?start=S&stop=E answers the results
# of RESULTS (a JSON list) of measurement ID with S <= timestamp <= E, in
# time order, as a JSON list; each request's query is appended to
# requests.txt.
import http.server, json, sys, urllib.parse

RESULTS = json.load(open(sys.argv[2]))

class Atlas(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        u = urllib.parse.urlparse(self.path)
        q = urllib.parse.parse_qs(u.query)
        parts = u.path.strip('/').split('/')
        if len(parts) != 5 or parts[:3] != ['api', 'v2', 'measurements'] or parts[4] != 'results':
            self.send_error(404)
            return
        start = int(q.get('start', ['0'])[0])
        stop = int(q.get('stop', [str(2 ** 62)])[0])
        with open('requests.txt', 'a') as f:
            f.write(u.query + '\n')
        out = [r for r in RESULTS if r.get('msm_id') == int(parts[3]) and start <= r['timestamp'] <= stop]
        body = json.dumps(sorted(out, key=lambda r: r['timestamp'])).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

server = http.server.HTTPServer(('127.0.0.1', 0), Atlas)
with open(sys.argv[1] + '.tmp', 'w') as f:
    f.write(str(server.server_address[1]))
import os
os.rename(sys.argv[1] + '.tmp', sys.argv[1])
server.serve_forever()
