# pscheduler_server.py PORTFILE DOCS.json (tests/cli/pscheduler.sh): the
# part of OpenSearch's _search the pscheduler format uses, on loopback.
# POST .../_search with a JSON body: query.bool.filter's range on
# pscheduler.start_time (gte, lte) and terms on test.type.keyword, sort by
# pscheduler.start_time then pscheduler.run_href.keyword (both asc),
# search_after the previous page's sort values, size.  Answers
# {hits: {total, hits: [{_index, _id, _source, sort: [millis, run_href]}]}}.
# Paths starting /cap2/ answer at most 2 hits a page; /repeat/ always the
# first page, whatever search_after says.  Each body is appended to
# requests.jsonl.
import datetime, http.server, json, os, sys

DOCS = json.load(open(sys.argv[2]))

def millis(iso):
    return int(datetime.datetime.fromisoformat(iso.replace('Z', '+00:00')).timestamp() * 1000)

def key(d):
    return [millis(d['pscheduler']['start_time']), d['pscheduler']['run_href']]

class Search(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers['Content-Length'])))
        with open('requests.jsonl', 'a') as f:
            f.write(json.dumps(body) + '\n')
        flt = body['query']['bool']['filter']
        rng = [c['range']['pscheduler.start_time'] for c in flt if 'range' in c][0]
        types = [c['terms']['test.type.keyword'] for c in flt if 'terms' in c][0]
        assert body['sort'] == [{'pscheduler.start_time': 'asc'}, {'pscheduler.run_href.keyword': 'asc'}]
        lo, hi = millis(rng['gte']), millis(rng['lte'])
        docs = sorted((d for d in DOCS if d.get('test', {}).get('type') in types
                       and 'start_time' in d['pscheduler'] and lo <= key(d)[0] <= hi), key=key)
        after = body.get('search_after')
        if after and not self.path.startswith('/repeat/'):
            docs = [d for d in docs if key(d) > after]
        size = min(body['size'], 2 if self.path.startswith('/cap2/') else 10000)
        hits = [{'_index': 'pscheduler_' + d['test']['type'], '_id': str(i), '_source': d,
                 'sort': key(d)} for i, d in enumerate(docs[:size])]
        out = json.dumps({'hits': {'total': {'value': len(docs)}, 'hits': hits}}).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass

server = http.server.HTTPServer(('127.0.0.1', 0), Search)
with open(sys.argv[1] + '.tmp', 'w') as f:
    f.write(str(server.server_address[1]))
os.rename(sys.argv[1] + '.tmp', sys.argv[1])
server.serve_forever()
