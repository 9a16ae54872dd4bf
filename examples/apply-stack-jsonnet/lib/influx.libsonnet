// Helpers for pkger resources (apiVersion influxdata.com/v2alpha1).
{
  local resource(kind, name, spec) = {
    apiVersion: 'influxdata.com/v2alpha1',
    kind: kind,
    metadata: { name: name },
    spec: spec,
  },
  local labelled(labels) = [{ kind: 'Label', name: l } for l in labels],

  label(name, color):: resource('Label', name, { color: color }),
  bucket(name, days, labels=[]):: resource('Bucket', name, {
    retentionRules: [{ type: 'expire', everySeconds: days * 24 * 3600 }],
    associations: labelled(labels),
  }),
  deadman(name, bucket, every, labels=[]):: resource('CheckDeadman', name, {
    every: every,
    level: 'CRIT',
    query: 'from(bucket: "%s") |> range(start: -5m) |> filter(fn: (r) => r._measurement == "cpu")' % bucket,
    statusMessageTemplate: 'Check: ${ r._check_name } is: ${ r._level }',
    staleTime: '10m',
    timeSince: '90s',
    associations: labelled(labels),
  }),
}
