"""The broker transport of the services that only send jobs: a job whose sender gave up is never
queued.

kombu's Redis publish is one LPUSH on a kept-alive connection. When Redis hangs (its port open,
no answers: paused, swapping, a stalled fork) that command waits in the socket while the sender
times out and answers 503; when Redis wakes up it runs the LPUSH, and the job the client was told
had failed runs anyway (measured: a submission refused while redis-server was stopped with
SIGSTOP was in its queue after SIGCONT). Here a publish first reads Redis' own clock, then pushes
through a script that refuses once that clock has passed half the sender's timeout: whatever
Redis runs that late, its sender has given up on (or is about to), so it is dropped, not queued.
"""

from __future__ import annotations

from kombu.transport import redis as kombu_redis
from kombu.utils.json import dumps
from redis.exceptions import TimeoutError as RedisTimeoutError

# KEYS[1] the queue's list; ARGV[1] the deadline in Redis microseconds; ARGV[2] the message.
_PUSH_BEFORE = """
local now = redis.call('TIME')
if tonumber(now[1]) * 1000000 + tonumber(now[2]) > tonumber(ARGV[1]) then
  return 0
end
redis.call('LPUSH', KEYS[1], ARGV[2])
return 1
"""


class Channel(kombu_redis.Channel):
    from_transport_options = kombu_redis.Channel.from_transport_options + ("publish_timeout",)
    publish_timeout: float | None = None  # seconds; None is kombu's plain publish

    def _put(self, queue: str, message: dict, **kwargs: object) -> None:
        if (self.publish_timeout is None or kwargs.get("_publish_batch") is not None
                or (self._expires and queue in self._expires)):
            return super()._put(queue, message, **kwargs)
        key = self._q_for_pri(queue, self._get_message_priority(message, reverse=False))
        with self.conn_or_acquire() as client:
            seconds, micros = client.time()
            deadline = seconds * 1_000_000 + micros + int(self.publish_timeout * 500_000)
            if not client.eval(_PUSH_BEFORE, 1, key, deadline, dumps(message)):
                raise RedisTimeoutError("redis ran the publish after its sender had given up; "
                                        "the job was dropped, not queued")
        return None


class Transport(kombu_redis.Transport):
    Channel = Channel
