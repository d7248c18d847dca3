"""The DreamChat Cloud CDK app: one stack per environment (`cdk deploy -c env=dev|prod`)."""
