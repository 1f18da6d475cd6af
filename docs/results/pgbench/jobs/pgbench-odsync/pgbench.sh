# platter client pgbench, runtime 4 s (packages: postgresql-15)
# PostgreSQL 15's server with its data on the file system under test,
# and pgbench's TPC-B-like transactions against it from one client
# over an AF_UNIX socket.  Set up unmeasured: initdb --no-sync, the
# load (pgbench -i -s 1); measured: pgbench -T
bin=/usr/lib/postgresql/15/bin
data=$PWD/pgdata
grep -qs '^postgres:' /etc/passwd || echo 'postgres:x:70:70::/tmp:/bin/sh' >>/etc/passwd
grep -qs '^postgres:' /etc/group || echo 'postgres:x:70:' >>/etc/group
mkdir -p "$data" && chown 70:70 "$data" && chmod 700 "$data" || exit
pg() { su -s /bin/sh postgres -c "$*"; }
log() { echo "platter: $1 failed:" >&2; cat "$2" >&2; exit 1; }
pg "$bin/initdb -D $data -A trust -E UTF8 --locale=C --no-sync -U postgres" >/tmp/initdb.log 2>&1 || log initdb /tmp/initdb.log
pg "$bin/pg_ctl -D $data -l /tmp/postgres.log -o '-c listen_addresses= -k /tmp -c max_wal_senders=0 -c wal_level=minimal -c wal_sync_method=open_datasync' -w start" >/tmp/pg_ctl.log 2>&1 || log 'the server start' /tmp/postgres.log
pg "$bin/pgbench -h /tmp -U postgres -i -s 1 -q postgres" >/tmp/pgbench-i.log 2>&1 || log 'pgbench -i' /tmp/pgbench-i.log
pg "$bin/pgbench -h /tmp -U postgres -T 4 -c 1 postgres" 2>&1 || log pgbench /tmp/postgres.log
pg "$bin/pg_ctl -D $data -m fast -w stop" >/dev/null 2>&1
