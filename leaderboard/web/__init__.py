"""HTTP plumbing around the pages, none of it page logic: the shared cache's backend and
keys, whole-response caching and HTTP caching headers, the Content-Security-Policy and
request-size middleware, the client's address behind trusted proxies, and static files."""
