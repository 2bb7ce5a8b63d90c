ALTER TABLE "pt_bookings" ADD COLUMN "version" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "version" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
DROP INDEX IF EXISTS "micromobility_trips_tenant_idx";--> statement-breakpoint
CREATE INDEX "micromobility_trips_tenant_idx" ON "micromobility_trips" USING btree ("tenant_id","environment","created_at");--> statement-breakpoint
CREATE INDEX "micromobility_trips_reserved_idx" ON "micromobility_trips" USING btree ("tenant_id","environment","reserved_until") WHERE "micromobility_trips"."status" = 'RESERVED';
