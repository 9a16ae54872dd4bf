// One bucket per environment, each watched by a deadman check.
local influx = import 'lib/influx.libsonnet';
local envs = { dev: 7, prod: 90 };

[influx.label('team-observability', '#326BBA')] +
[influx.bucket('metrics-%s' % env, envs[env], ['team-observability']) for env in std.objectFields(envs)] +
[influx.deadman('cpu-silent-%s' % env, 'metrics-%s' % env, '1m', ['team-observability']) for env in std.objectFields(envs)]
