# canned_archive.py PORTFILE (tests/cli/skew.sh, badvalue.sh): a hostile
# archive on loopback that answers the same canned bytes whatever range
# it is asked (a probe with a wrong clock, a bad value in one record),
# as the three archives' endpoints the fetching formats use:
#   GET .../results/?start=S&stop=E  (RIPE Atlas)     -> ./atlas.json
#   POST .../_search                 (OpenSearch)     -> ./search.json,
#        or no hits when the request goes on from a page (search_after)
#   GET /api/v1/query_range?query=Q  (Prometheus)     -> ./prom_ok.json when
#        Q is the success query (it holds "success"), else ./prom_rtt.json
# The files are read at each request (a test changes them between runs)
# and sent as they are, bytes that are not JSON or not UTF-8 included.
# Each request's query (a POST: its range and search_after, as JSON) is
# appended to requests.txt, one line a request.
import http.server, json, os, sys, urllib.parse


class Canned(http.server.BaseHTTPRequestHandler):
    def answer(self, name):
        try:
            body = open(name, 'rb').read()
        except OSError:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log(self, line):
        with open('requests.txt', 'a') as f:
            f.write(line + '\n')

    def do_GET(self):
        u = urllib.parse.urlparse(self.path)
        self.log(u.query)
        if u.path.endswith('/query_range'):
            q = urllib.parse.parse_qs(u.query).get('query', [''])[0]
            self.answer('prom_ok.json' if 'success' in q else 'prom_rtt.json')
        else:
            self.answer('atlas.json')

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers['Content-Length'])))
        flt = body['query']['bool']['filter']
        rng = [c['range']['pscheduler.start_time'] for c in flt if 'range' in c][0]
        self.log(json.dumps({'range': rng, 'search_after': body.get('search_after')}))
        if body.get('search_after'):
            out = json.dumps({'hits': {'total': {'value': 0}, 'hits': []}}).encode()
            self.send_response(200)
            self.send_header('Content-Type', 'application/json')
            self.send_header('Content-Length', str(len(out)))
            self.end_headers()
            self.wfile.write(out)
        else:
            self.answer('search.json')

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(('127.0.0.1', 0), Canned)
with open(sys.argv[1] + '.tmp', 'w') as f:
    f.write(str(server.server_address[1]))
os.rename(sys.argv[1] + '.tmp', sys.argv[1])
server.serve_forever()
