"""What the services share: the request guard and the job table."""
