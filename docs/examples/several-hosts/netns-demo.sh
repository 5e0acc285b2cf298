#!/usr/bin/env bash
# Several gamenight hosts on one Linux machine: three network namespaces stand for three
# machines on a private network (docs/hosting.md, "Setting it up, step by step").
#
#   netns-demo.sh up [GAMENIGHT]   start: "db" (Redis + PostgreSQL), "front-a" and "front-b"
#                                  (gamenight serve-ssh each), players connect from this shell
#   netns-demo.sh down             stop everything and delete the namespaces
#
# Run as root. Everything lives in $WORK (default /tmp/gamenight-netns): the Redis and
# PostgreSQL data, the shared data dir, the passwords and each server's log.
set -euo pipefail

WORK=${WORK:-/tmp/gamenight-netns}
NET=${NET:-10.77.0}           # the private network: .1 this shell (players), .10 db, .11/.12 fronts
BRIDGE=gnop-br
PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)}

in_ns() { ip netns exec "$1" "${@:2}"; }

up() {
    local gamenight=${1:-gamenight}
    trap 'echo "$0: setting up failed; run: $0 down" >&2' ERR
    mkdir -p "$WORK"/{redis,shared,log}
    chmod 0711 "$WORK"

    # The network: a bridge in this namespace, one veth pair per "host".
    ip link add "$BRIDGE" type bridge
    ip addr add "$NET.1/24" dev "$BRIDGE"
    ip link set "$BRIDGE" up
    local name addr
    for pair in db:10 front-a:11 front-b:12; do
        name=${pair%%:*} addr=${pair##*:}
        ip netns add "gnop-$name"
        ip link add "gnop-$name" type veth peer name eth0 netns "gnop-$name"
        ip link set "gnop-$name" master "$BRIDGE" up
        in_ns "gnop-$name" ip addr add "$NET.$addr/24" dev eth0
        in_ns "gnop-$name" ip link set eth0 up
        in_ns "gnop-$name" ip link set lo up
    done

    # Passwords: made once, readable by root only.
    umask 077
    [ -s "$WORK/redis.pass" ] || head -c 24 /dev/urandom | base64 | tr -d '/+=' >"$WORK/redis.pass"
    [ -s "$WORK/pg.pass" ] || head -c 24 /dev/urandom | base64 | tr -d '/+=' >"$WORK/pg.pass"
    [ -s "$WORK/redis-admin.pass" ] || head -c 24 /dev/urandom | base64 | tr -d '/+=' >"$WORK/redis-admin.pass"
    umask 022
    local redis_pass pg_pass
    redis_pass=$(cat "$WORK/redis.pass") pg_pass=$(cat "$WORK/pg.pass")

    # Redis on the db host: TCP on the private address, an ACL user limited to gamenight's keys,
    # every write synced to the append-only file, never evicting. The default user keeps every
    # right, behind its own password: Redis 7.0 (Debian 12) replays the append-only file's
    # MULTI/EXEC blocks with the default user's rights, so with "user default off" every write
    # of gamenight's Lua scripts (leases, epochs, moves) is silently dropped at a restart.
    cat >"$WORK/redis/redis.conf" <<CONF
bind $NET.10
port 6379
protected-mode yes
dir $WORK/redis
appendonly yes
appendfsync always
maxmemory-policy noeviction
daemonize yes
pidfile $WORK/redis/redis.pid
logfile $WORK/log/redis.log
user default on >$(cat "$WORK/redis-admin.pass") ~* &* +@all
user gamenight on >$redis_pass ~gamenight:* &* +@all -@admin -@dangerous
CONF
    chmod 0600 "$WORK/redis/redis.conf"
    in_ns gnop-db redis-server "$WORK/redis/redis.conf"

    # PostgreSQL on the db host: a throwaway cluster run by "nobody", TCP with password
    # (scram-sha-256) from the private network only.
    install -d -o nobody -m 0700 "$WORK/pg"
    echo "$pg_pass" >"$WORK/pg/superuser.pass"
    chown nobody "$WORK/pg/superuser.pass"
    in_ns gnop-db runuser -u nobody -- "$PG_BIN/initdb" -D "$WORK/pg/data" -U postgres \
        --auth-local=trust --auth-host=scram-sha-256 --pwfile="$WORK/pg/superuser.pass" >/dev/null
    cat >>"$WORK/pg/data/postgresql.conf" <<CONF
listen_addresses = '$NET.10'
unix_socket_directories = '$WORK/pg'
CONF
    echo "host gamenight gamenight $NET.0/24 scram-sha-256" >>"$WORK/pg/data/pg_hba.conf"
    in_ns gnop-db runuser -u nobody -- "$PG_BIN/pg_ctl" -D "$WORK/pg/data" -l "$WORK/pg/postgres.log" -w start >/dev/null
    in_ns gnop-db runuser -u nobody -- "$PG_BIN/psql" -h "$WORK/pg" -U postgres -q -v ON_ERROR_STOP=1 <<SQL
CREATE ROLE gamenight LOGIN PASSWORD '$pg_pass';
CREATE DATABASE gamenight OWNER gamenight ENCODING 'UTF8' LOCALE 'C' TEMPLATE template0;
SQL

    # The secrets the fronts read: a pgpass file and an environment file, never the command line.
    echo "$NET.10:5432:gamenight:gamenight:$pg_pass" >"$WORK/pgpass"
    {
        echo "GAMENIGHT_TABLES_URL=redis://gamenight:$redis_pass@$NET.10:6379/0"
        echo "GAMENIGHT_RECORDS_URL=postgresql://gamenight@$NET.10:5432/gamenight"
        echo "PGPASSFILE=$WORK/pgpass"
    } >"$WORK/gamenight.env"
    chmod 0600 "$WORK/pgpass" "$WORK/gamenight.env"

    # The two fronts: the same data dir (here one folder; on real machines one shared mount),
    # the same Redis and database, each on its own address.
    for pair in front-a:11 front-b:12; do
        name=${pair%%:*} addr=${pair##*:}
        # shellcheck disable=SC2046  # one NAME=VALUE per line, no spaces
        in_ns "gnop-$name" env $(cat "$WORK/gamenight.env") \
            setsid sh -c 'echo $$ >"$0"; exec "$@"' "$WORK/$name.pid" \
            "$gamenight" serve-ssh --host "$NET.$addr" --port 2222 --guest \
            --data-dir "$WORK/shared" >"$WORK/log/$name.log" 2>&1 </dev/null &
        # the first host makes the host key and the data dir's id: let it finish first
        for _ in $(seq 60); do
            grep -q '"listening"' "$WORK/log/$name.log" 2>/dev/null && break
            sleep 1
        done
    done
    echo "players: ssh -p 2222 NAME@$NET.11   or   ssh -p 2222 NAME@$NET.12"
}

down() {
    local pid
    for name in front-a front-b; do
        if [ -s "$WORK/$name.pid" ]; then
            pid=$(cat "$WORK/$name.pid")
            kill -TERM "$pid" 2>/dev/null || true
            for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
            rm -f "$WORK/$name.pid"
        fi
    done
    if [ -d "$WORK/pg/data" ]; then
        ip netns exec gnop-db runuser -u nobody -- "$PG_BIN/pg_ctl" -D "$WORK/pg/data" -m fast stop >/dev/null 2>&1 || true
    fi
    if [ -s "$WORK/redis/redis.pid" ]; then
        kill -TERM "$(cat "$WORK/redis/redis.pid")" 2>/dev/null || true
    fi
    for name in db front-a front-b; do
        ip netns del "gnop-$name" 2>/dev/null || true
        ip link del "gnop-$name" 2>/dev/null || true
    done
    ip link del "$BRIDGE" 2>/dev/null || true
    rm -rf "$WORK"
}

case "${1:-}" in
    up) up "${2:-}" ;;
    down) down ;;
    *)
        echo "usage: $0 up [GAMENIGHT] | down" >&2
        exit 2
        ;;
esac
