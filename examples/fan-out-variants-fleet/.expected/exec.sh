# Render the fleet: every PackageVariantSet expanded over the cluster's
# objects, every variant's package written under deployments/.
kptkit variants render --variants variants --cluster cluster --upstream upstream --out deployments --render=false
